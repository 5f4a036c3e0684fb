import { createHash, randomBytes } from 'node:crypto';
import type supertest from 'supertest';
import type { Pages } from './harness';

export const CALLBACK = 'https://portal.example.org/callback';

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export const locationOf = (res: { headers: Record<string, string> }) => new URL(res.headers.location);

/** A browser going through the authorization endpoint of `pages`, and a client at its token endpoint. */
export function oauthFlow(pages: () => Pages) {
  const authorizeQuery = (params: Record<string, string>) => new URLSearchParams({ response_type: 'code', redirect_uri: CALLBACK, ...params }).toString();

  /** GET /v2/oauth2/authorize as the signed-in browser, up to the consent screen (or the redirect when nothing is asked). */
  async function openAuthorize(agent: supertest.Agent, params: Record<string, string>) {
    const first = await agent.get(`/v2/oauth2/authorize?${authorizeQuery(params)}`);
    if (first.status !== 302 || !/^\/v2\/web\/authorize\?/.test(first.headers.location)) throw new Error(`authorize did not hand over: ${first.status}`);
    return agent.get(first.headers.location);
  }

  /** Submits the consent screen's form as the browser would. */
  async function decide(agent: supertest.Agent, screen: { text: string }, decision: 'allow' | 'deny') {
    const fields: Record<string, string> = { decision };
    for (const [, name, value] of screen.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[name] = value.replace(/&amp;/g, '&');
    return agent.post('/v2/web/authorize').type('form').send(fields);
  }

  /** An authorization code for `clientId`, allowing the consent screen if one is shown. */
  async function codeFor(agent: supertest.Agent, clientId: string, params: Record<string, string>) {
    const screen = await openAuthorize(agent, { client_id: clientId, state: 'xyz', ...params });
    const res = screen.status === 302 ? screen : await decide(agent, screen, 'allow');
    if (res.status !== 302) throw new Error(`no code: ${res.status} ${res.text}`);
    return locationOf(res).searchParams.get('code')!;
  }

  const token = (form: Record<string, string>, auth?: [string, string]) => {
    const request = pages().http.post('/v2/oauth2/token').type('form');
    return (auth ? request.auth(auth[0], auth[1]) : request).send(form);
  };

  return { authorizeQuery, openAuthorize, decide, codeFor, token };
}
