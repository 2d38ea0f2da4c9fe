/**
 * Wall-clock times of a deployment's answers as instants. EFA servers write many times without an
 * offset (parking `measuredAt` `2026-11-24T09:58:00`, legacy `itdDate`/`itdTime`): they are the
 * deployment's local time, read here in its IANA zone with the zone rules of Node's ICU.
 *
 * DST edges are resolved as PostgreSQL's `timestamp AT TIME ZONE` resolves them, so a time read here
 * (parking snapshots) and the same text read by SQL (efa.current_parking) name the same instant:
 * - a wall time in a spring-forward gap (02:30 on the last Sunday of March in Berlin) is read with
 *   the offset before the change (+01:00: 01:30Z, i.e. 03:30 summer time);
 * - a wall time that occurs twice (02:30 on the last Sunday of October) is the later instant
 *   (+01:00: 01:30Z).
 * A zone is assumed to change its offset at most once within a day of the time read.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Whether `name` is an IANA zone name (`Europe/Berlin`, `UTC`) that both Node and PostgreSQL read
 * the same way. Offsets (`+01:00`) and POSIX rules are refused: PostgreSQL reads the sign of a POSIX
 * zone the other way round, so `+01:00` would name two different zones.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(name)) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `instantMs`, in ms (east positive), to the second. */
export function offsetAt(zone: string, instantMs: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatterOf(zone).formatToParts(new Date(instantMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return asUtc - Math.floor(instantMs / 1000) * 1000;
}

const dayMs = 86_400_000;

/**
 * The instant of a wall-clock time in `zone`. `wallMs` is the wall time's fields read as if UTC
 * (`Date.UTC(y, m - 1, d, h, min, s, ms)`). Gaps and overlaps as the module comment says.
 */
export function instantOfWallTime(wallMs: number, zone: string): number {
  const before = offsetAt(zone, wallMs - dayMs);
  const after = offsetAt(zone, wallMs + dayMs);
  const fits = [...new Set([before, after])].filter((o) => offsetAt(zone, wallMs - o) === o);
  // Two readings fit (an overlap): the later instant, the one with the smaller offset.
  if (fits.length > 0) return wallMs - Math.min(...fits);
  // None fits (a gap): the offset before the change.
  return wallMs - before;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/;
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

/**
 * An ISO 8601 date-time as an instant: with `Z` or an offset as written; without one, as wall time
 * in `zone` (null when no zone is known). Null for anything else, an impossible date included
 * (2026-02-30). sql/022's efa.parse_instant(text, zone) reads the same way.
 */
export function instantOfText(value: unknown, zone: string | undefined): Date | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (WITH_ZONE.test(text)) {
    const at = new Date(text.replace(' ', 'T'));
    return Number.isNaN(at.getTime()) ? null : at;
  }
  const m = WALL_TIME.exec(text);
  if (!m || zone === undefined) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const ms = m[7] === undefined ? 0 : Math.round(Number(m[7]) * 1000);
  return instantOfWall({ y, mo, d, h, mi, s, ms }, zone);
}

/** The instant of calendar fields in `zone`; null for an impossible date or time. */
export function instantOfWall(t: { y: number; mo: number; d: number; h: number; mi: number; s?: number; ms?: number }, zone: string): Date | null {
  const wall = Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi, t.s ?? 0, t.ms ?? 0);
  const check = new Date(wall);
  if (
    Number.isNaN(wall) || check.getUTCFullYear() !== t.y || check.getUTCMonth() !== t.mo - 1 || check.getUTCDate() !== t.d ||
    check.getUTCHours() !== t.h || check.getUTCMinutes() !== t.mi
  ) return null;
  return new Date(instantOfWallTime(wall, zone));
}
