import { parseIsoInstant } from './dates';

const iso = (value: string) => parseIsoInstant(value)?.toISOString() ?? null;

describe('an ISO 8601 instant', () => {
  it('reads a date (midnight UTC) and a datetime to the second or its fraction, UTC when no offset is written', () => {
    expect(iso('2026-11-26')).toBe('2026-11-26T00:00:00.000Z');
    expect(iso('2026-11-26T07:05')).toBe('2026-11-26T07:05:00.000Z');
    expect(iso('2026-11-26T07:05:09')).toBe('2026-11-26T07:05:09.000Z');
    expect(iso('2026-11-26T07:05:09Z')).toBe('2026-11-26T07:05:09.000Z');
    expect(iso('2026-11-26T07:05:09.5')).toBe('2026-11-26T07:05:09.500Z');
    // a fraction is cut to the millisecond, never rounded into the next one
    expect(iso('2026-11-26T07:05:09.123999999')).toBe('2026-11-26T07:05:09.123Z');
    expect(iso('2026-11-26T23:59:59.9999')).toBe('2026-11-26T23:59:59.999Z');
  });

  it('applies an offset, east ahead of UTC and west behind, into the day before or after', () => {
    expect(iso('2026-11-26T01:30:00+02:00')).toBe('2026-11-25T23:30:00.000Z');
    expect(iso('2026-11-26T22:15:00-03:45')).toBe('2026-11-27T02:00:00.000Z');
    expect(iso('2026-11-26T12:00+00:00')).toBe('2026-11-26T12:00:00.000Z');
    expect(iso('2026-11-26T12:00+23:59')).toBe('2026-11-25T12:01:00.000Z');
  });

  it('refuses what a calendar does not have, as written, never rolling it over', () => {
    for (const value of ['2026-02-29', '1900-02-29', '2026-04-31', '2026-00-10', '2026-13-01', '2026-01-00', '2026-01-32', '0000-01-01', '2026-01-01T24:00', '2026-01-01T12:60', '2026-01-01T12:00:60', '2026-01-01T12:00+24:00', '2026-01-01T12:00+01:60']) {
      expect([value, parseIsoInstant(value)]).toEqual([value, null]);
    }
    for (const [value, instant] of [['2024-02-29', '2024-02-29T00:00:00.000Z'], ['2000-02-29', '2000-02-29T00:00:00.000Z'], ['2026-12-31T23:59:59', '2026-12-31T23:59:59.000Z'], ['2026-04-30', '2026-04-30T00:00:00.000Z'], ['2026-01-31', '2026-01-31T00:00:00.000Z'], ['2024-03-31', '2024-03-31T00:00:00.000Z'], ['2024-02-28', '2024-02-28T00:00:00.000Z']]) {
      expect(iso(value)).toBe(instant);
    }
  });

  it('refuses other spellings: two-digit parts, a space for T, a lone hour, text around it', () => {
    for (const value of ['26-11-26', '2026-1-26', '2026-11-26 07:05', '2026-11-26T07', '2026-11-26T07:05:09.', '2026-11-26T07:05:09.1234567890', ' 2026-11-26', '2026-11-26Z', '2026-11-26T07:05+0200', 'x2026-11-26', '2026-11-26x']) {
      expect([value, parseIsoInstant(value)]).toEqual([value, null]);
    }
  });

  it('keeps to years 0001-9999 after the offset is applied', () => {
    expect(iso('0001-01-01')).toBe('0001-01-01T00:00:00.000Z');
    expect(iso('9999-12-31T23:59:59.999')).toBe('9999-12-31T23:59:59.999Z');
    expect(parseIsoInstant('9999-12-31T23:30-01:00')).toBeNull();
    expect(parseIsoInstant('0001-01-01T00:30+01:00')).toBeNull();
    // year 0 is refused as written, even where the offset would carry it into year 1
    expect(parseIsoInstant('0000-12-31T23:30-01:00')).toBeNull();
    expect(iso('0001-01-01T01:30+01:00')).toBe('0001-01-01T00:30:00.000Z');
    // years before 100 are not read as 19xx
    expect(iso('0099-06-01')).toBe('0099-06-01T00:00:00.000Z');
  });
});
