import { booleanFromEnv, ConfigError, portFromEnv, secondsFromEnv, serviceConfig } from './index';

describe('settings from the environment', () => {
  it('reads ports, seconds and booleans, with the fallback when unset or empty', () => {
    expect(portFromEnv('P', 8080, {})).toBe(8080);
    expect(portFromEnv('P', 8080, { P: '' })).toBe(8080);
    expect(portFromEnv('P', 8080, { P: '0' })).toBe(0);
    expect(secondsFromEnv('S', 60, { S: '3600' }, { max: 3600 })).toBe(3600);
    expect(booleanFromEnv('B', { B: 'Yes' })).toBe(true);
    expect(booleanFromEnv('B', {})).toBe(false);
    expect(serviceConfig({})).toEqual({ host: '127.0.0.1', logLevel: 'info' });
  });

  it.each([
    [() => portFromEnv('API_PORT', 1, { API_PORT: '65536' }), "API_PORT='65536' is not a port number (0-65535)"],
    [() => secondsFromEnv('AUTH_CODE_LIFETIME', 1, { AUTH_CODE_LIFETIME: '601' }, { max: 600 }), "AUTH_CODE_LIFETIME='601' must be a number of seconds from 1 to 600"],
    [() => booleanFromEnv('TRUST_PROXY', { TRUST_PROXY: 'maybe' }), "TRUST_PROXY='maybe' must be true or false"],
    [() => serviceConfig({ HOST: 'a b' }), "HOST='a b' is not an address to listen on"],
    [() => serviceConfig({ LOG_LEVEL: 'loud' }), "LOG_LEVEL='loud' must be one of fatal, error, warn, info, debug, trace, silent"],
  ])('names the variable of a bad value (%#)', (read, message) => {
    expect(read).toThrow(new ConfigError(message));
  });
});
