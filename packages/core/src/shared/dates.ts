/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` and `Z` or `±HH:MM` (none: UTC). */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The first instant past year 9999, where ISO 8601's four-digit years end. */
const END_OF_YEAR_9999 = Date.UTC(10000, 0, 1);

/**
 * An ISO 8601 date or datetime as an instant, or null when it is not one a calendar has: each
 * part is checked as written (February 30 is refused, never rolled into March), and the instant,
 * offset applied, must fall within years 0001-9999.
 */
export function parseIsoInstant(value: string): Date | null {
  const m = ISO_INSTANT.exec(value);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (year < 1 || daysInMonth === undefined || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  const offset = m[8];
  let offsetMinutes = 0;
  if (offset && offset !== 'Z') {
    const [h, min] = offset.slice(1).split(':').map(Number);
    if (h > 23 || min > 59) return null;
    offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (h * 60 + min);
  }
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - offsetMinutes, second, millis);
  return utc.getTime() < END_OF_YEAR_9999 && utc.getUTCFullYear() >= 1 ? utc : null;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
