import { BadRequestError } from '../shared/errors';

const NUMBER = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** The longest location stored: two numbers with all the precision anyone needs, and more. */
export const MAX_LOCATION = 64;

/** `Automatic` or `LAT,LON` with |LAT| <= 90 and |LON| <= 180. */
export function checkLocation(value: string): string {
  if (value === 'Automatic') return value;
  if (value.length > MAX_LOCATION) throw new BadRequestError(`Invalid location: at most ${MAX_LOCATION} characters ('LATITUDE,LONGITUDE')`);
  const parts = value.split(',');
  const fail = () =>
    new BadRequestError(`Invalid location '${value}': must be 'Automatic' or 'LATITUDE,LONGITUDE' as decimal numbers`);
  if (parts.length !== 2 || !parts.every((p) => NUMBER.test(p))) throw fail();
  const [lat, lon] = parts.map(Number);
  if (Math.abs(lat) > 90) throw new BadRequestError(`Invalid location '${value}': latitude must be within -90..90`);
  if (Math.abs(lon) > 180) throw new BadRequestError(`Invalid location '${value}': longitude must be within -180..180`);
  return value;
}
