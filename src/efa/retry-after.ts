export { parseRetryAfter } from '../http/retry-after.js';

/** Header names are case-insensitive; transports may hand them over in any case. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
