import { apiConfig } from '../config';

describe('configuration from the environment', () => {
  it('has defaults for everything', () => {
    expect(apiConfig({})).toEqual({
      databaseUrl: 'sqlite:./data/xfer.sqlite',
      databasePoolSize: undefined,
      host: '127.0.0.1',
      logLevel: 'info',
      apiPort: 8080,
      bodyLimit: '1mb',
      introspection: null,
      requiredScope: 'urn:globus:auth:scope:transfer.api.globus.org:all',
      workers: 1,
      taskWorkers: 4,
    });
    expect(apiConfig({ API_TASK_WORKERS: '0' }).taskWorkers).toBe(0);
    expect(apiConfig({ API_TASK_WORKERS: '12' }).taskWorkers).toBe(12);
  });

  it.each([
    [{ API_PORT: 'eighty' }, "API_PORT='eighty'"],
    [{ API_PORT: '70000' }, "API_PORT='70000'"],
    [{ DATABASE_URL: 'mysql://db' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
    [{ API_BODY_LIMIT: 'lots' }, "API_BODY_LIMIT='lots'"],
    [{ LOG_LEVEL: 'loud' }, "LOG_LEVEL='loud'"],
    [{ HOST: 'my host' }, "HOST='my host'"],
    [{ AUTH_INTROSPECTION_URL: 'not a url' }, 'AUTH_INTROSPECTION_URL'],
    [{ AUTH_REQUIRED_SCOPE: 'two scopes' }, 'AUTH_REQUIRED_SCOPE'],
    [{ AUTH_INTROSPECTION_URL: 'https://auth.example.org/introspect' }, 'AUTH_INTROSPECTION_CLIENT_ID'],
    [{ API_WORKERS: '0' }, "API_WORKERS='0'"],
    [{ API_WORKERS: 'all' }, "API_WORKERS='all'"],
    [{ API_WORKERS: '65' }, "API_WORKERS='65'"],
    [{ API_TASK_WORKERS: '65' }, "API_TASK_WORKERS='65'"],
    [{ API_TASK_WORKERS: 'many' }, "API_TASK_WORKERS='many'"],
    [{ DATABASE_POOL_SIZE: '0' }, "DATABASE_POOL_SIZE='0'"],
    [{ DATABASE_POOL_SIZE: 'many' }, "DATABASE_POOL_SIZE='many'"],
    [{ DATABASE_POOL_SIZE: '101' }, "DATABASE_POOL_SIZE='101'"],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => apiConfig(env)).toThrow(name);
  });

  it('reads the number of Postgres connections', () => {
    expect(apiConfig({ DATABASE_POOL_SIZE: '3' }).databasePoolSize).toBe(3);
  });

  it('reads the introspection settings', () => {
    const config = apiConfig({ AUTH_INTROSPECTION_URL: 'https://auth.example.org/v2/oauth2/token/introspect', AUTH_INTROSPECTION_CLIENT_ID: 'c', AUTH_INTROSPECTION_CLIENT_SECRET: 's' });
    expect(config.introspection).toEqual({ url: 'https://auth.example.org/v2/oauth2/token/introspect', clientId: 'c', clientSecret: 's' });
  });

  it('takes the required scope from the environment; an empty scope accepts any token', () => {
    expect(apiConfig({ AUTH_REQUIRED_SCOPE: 'urn:example:scope:api:all' }).requiredScope).toBe('urn:example:scope:api:all');
    expect(apiConfig({ AUTH_REQUIRED_SCOPE: '' }).requiredScope).toBeNull();
  });
});
