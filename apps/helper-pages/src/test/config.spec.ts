import { helperPagesConfig } from '../config';

describe('helper pages configuration', () => {
  it('has defaults', () => {
    expect(helperPagesConfig({})).toMatchObject({ authPort: 8081, trustProxy: false, csrfSecret: undefined, databaseUrl: 'sqlite:./data/xfer.sqlite' });
    expect(helperPagesConfig({ TRUST_PROXY: 'true', AUTH_CSRF_SECRET: 'x'.repeat(32) })).toMatchObject({ trustProxy: true, csrfSecret: 'x'.repeat(32) });
    expect(helperPagesConfig({})).toMatchObject({ issuer: 'http://127.0.0.1:8081', accessTokenLifetimeSeconds: 172800, codeLifetimeSeconds: 600 });
    expect(helperPagesConfig({ AUTH_PUBLIC_URL: 'https://auth.example.org/', AUTH_ACCESS_TOKEN_LIFETIME: '3600', AUTH_CODE_LIFETIME: '60' })).toMatchObject({
      issuer: 'https://auth.example.org',
      accessTokenLifetimeSeconds: 3600,
      codeLifetimeSeconds: 60,
    });
  });

  it.each([
    [{ AUTH_PORT: '-1' }, "AUTH_PORT='-1'"],
    [{ TRUST_PROXY: 'maybe' }, "TRUST_PROXY='maybe'"],
    [{ AUTH_CSRF_SECRET: 'short' }, 'AUTH_CSRF_SECRET'],
    [{ DATABASE_URL: 'oracle://db' }, 'DATABASE_URL'],
    [{ AUTH_PUBLIC_URL: 'auth.example.org' }, 'AUTH_PUBLIC_URL'],
    [{ AUTH_ACCESS_TOKEN_LIFETIME: '0' }, "AUTH_ACCESS_TOKEN_LIFETIME='0'"],
    [{ AUTH_CODE_LIFETIME: '3600' }, "AUTH_CODE_LIFETIME='3600'"],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => helperPagesConfig(env)).toThrow(name);
  });
});
