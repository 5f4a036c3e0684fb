import { checkLocation, MAX_LOCATION } from './location';

describe('an endpoint location', () => {
  it("is 'Automatic' or two decimal numbers, latitude then longitude", () => {
    for (const ok of ['Automatic', '0,0', '-90,180', '90,-180', '+45.5, 7.25', ' 1e1 ,.5', '12.,3E-2']) expect(checkLocation(ok)).toBe(ok);
    for (const bad of ['automatic', '', '1', '1,2,3', 'a,b', '1,,2', '1.2.3,4', '0x1,2', 'NaN,1', 'Infinity,1', '1,2e']) {
      expect(() => checkLocation(bad)).toThrow(`Invalid location '${bad}': must be 'Automatic' or 'LATITUDE,LONGITUDE' as decimal numbers`);
    }
  });

  it('keeps latitude within -90..90 and longitude within -180..180', () => {
    expect(() => checkLocation('90.0001,0')).toThrow(/latitude must be within -90..90/);
    expect(() => checkLocation('-91,0')).toThrow(/latitude/);
    expect(() => checkLocation('0,180.5')).toThrow(/longitude must be within -180..180/);
    expect(() => checkLocation('0,-181')).toThrow(/longitude/);
  });

  it(`is at most ${MAX_LOCATION} characters, however precise its numbers`, () => {
    const longest = `45.${'1'.repeat(29)},7.${'2'.repeat(29)}`;
    expect(longest).toHaveLength(MAX_LOCATION);
    expect(checkLocation(longest)).toBe(longest);
    expect(() => checkLocation(`${longest}3`)).toThrow(`Invalid location: at most ${MAX_LOCATION} characters ('LATITUDE,LONGITUDE')`);
  });

  it('refuses anything around or between the two numbers but spaces', () => {
    for (const bad of ['x1,2', '1,2x', '1x,2', '1,x2', '--1,2', '1e,2', '1e+,2', '.,1', '1 2,3']) {
      expect(() => checkLocation(bad)).toThrow(`Invalid location '${bad}'`);
    }
    for (const ok of ['\t1,2 ', '1e+1,1E-1', '-0.5,-.5', '5.,+5']) expect(checkLocation(ok)).toBe(ok);
  });
});
