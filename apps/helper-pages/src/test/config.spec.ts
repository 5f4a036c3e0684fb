import { helperPagesConfig } from '../config';

describe('helper pages configuration', () => {
  it('has defaults', () => {
    expect(helperPagesConfig({})).toMatchObject({ authPort: 8081, trustProxy: false, csrfSecret: undefined, databaseUrl: 'sqlite:./data/xfer.sqlite' });
    expect(helperPagesConfig({ TRUST_PROXY: 'true', AUTH_CSRF_SECRET: 'x'.repeat(32) })).toMatchObject({ trustProxy: true, csrfSecret: 'x'.repeat(32) });
  });

  it.each([
    [{ AUTH_PORT: '-1' }, "AUTH_PORT='-1'"],
    [{ TRUST_PROXY: 'maybe' }, "TRUST_PROXY='maybe'"],
    [{ AUTH_CSRF_SECRET: 'short' }, 'AUTH_CSRF_SECRET'],
    [{ DATABASE_URL: 'oracle://db' }, 'DATABASE_URL'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => helperPagesConfig(env)).toThrow(name);
  });
});
