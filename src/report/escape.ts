/** Text and attribute values for HTML and inline SVG: everything from the database passes through here. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A coordinate in SVG user units: one decimal is a tenth of a pixel, enough, and keeps the file small. */
export function px(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

/** Numbers for people: thousands separated, at most `digits` decimals. */
export function num(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}
