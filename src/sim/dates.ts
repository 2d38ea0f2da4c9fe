/** Calendar dates as 'YYYY-MM-DD' strings (they compare correctly as strings). */

export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

export function isIsoDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export function addDays(iso: string, days: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** 'DD-MM-YYYY' → ISO, or undefined when malformed or not a real date. */
export function fromDmy(s: string): string | undefined {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(s);
  if (!m) return undefined;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  return isIsoDate(iso) ? iso : undefined;
}

/** 'YYYYMMDD' → ISO, or undefined. */
export function fromYmdCompact(s: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (!m) return undefined;
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  return isIsoDate(iso) ? iso : undefined;
}
