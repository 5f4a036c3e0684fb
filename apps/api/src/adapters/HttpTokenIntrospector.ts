import { ServiceUnavailableError, type TokenIntrospection, type TokenIntrospector } from '@xfer/core';

/**
 * RFC 7662 token introspection against an external authorization server: a form POST with the
 * client's basic credentials and `include=identity_set`, as the hosted service's resource servers do.
 */
export class HttpTokenIntrospector implements TokenIntrospector {
  constructor(
    private readonly url: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly timeoutMs = 5000,
  ) {}

  async introspect(token: string): Promise<TokenIntrospection> {
    const credentials = Buffer.from(`${encodeURIComponent(this.clientId)}:${encodeURIComponent(this.clientSecret)}`).toString('base64');
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { Authorization: `Basic ${credentials}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({ token, include: 'identity_set' }).toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new ServiceUnavailableError('The authorization server cannot be reached to check the token; try again shortly.', 5);
    }
    if (!response.ok) {
      throw new ServiceUnavailableError(`The authorization server refused to check the token (HTTP ${response.status}); try again shortly.`, 5);
    }
    const body = (await response.json()) as Record<string, unknown>;
    const identitySet = Array.isArray(body.identity_set) ? body.identity_set.filter((x): x is string => typeof x === 'string') : undefined;
    return {
      active: body.active === true,
      sub: typeof body.sub === 'string' ? body.sub : undefined,
      username: typeof body.username === 'string' ? body.username : undefined,
      name: typeof body.name === 'string' ? body.name : null,
      email: typeof body.email === 'string' ? body.email : null,
      scope: typeof body.scope === 'string' ? body.scope : undefined,
      identity_set: identitySet,
    };
  }
}
