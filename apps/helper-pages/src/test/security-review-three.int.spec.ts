import { CLI_TEMPLATE_CLIENT, TRANSFER_SCOPE } from '@xfer/core';
import { BACKENDS, startPages, type Pages } from './harness';

/** Findings of the third security review on the authorization service, each kept fixed on every database. */
describe.each(BACKENDS)('security review three, authorization service, on $name', (backend) => {
  let pages: Pages;
  beforeEach(async () => {
    pages = await startPages(backend);
    await pages.admin.clients.installStandardCatalogue();
  });
  afterEach(() => pages.close());

  it('F1: a client made from the CLI template without credentials never gets a token as itself', async () => {
    const made = await pages.http.post('/v2/api/clients').send({ client: { template_id: CLI_TEMPLATE_CLIENT.id, name: 'Globus CLI' } });
    expect(made.status).toBe(200);
    expect(made.body.client.grant_types).toEqual(['authorization_code', 'refresh_token']);
    const { client, secret } = made.body.included.client_credential as { client: string; secret: string };
    const grant = await pages.http.post('/v2/oauth2/token').auth(client, secret).type('form').send({ grant_type: 'client_credentials', scope: TRANSFER_SCOPE });
    expect(grant.status).toBe(400);
    expect(grant.body).toMatchObject({ error: 'unauthorized_client' });
    expect(grant.body.access_token).toBeUndefined();
    // an operator's confidential client still acts as itself
    const robot = await pages.admin.clients.addClient({ display_name: 'Robot', redirect_uris: [], public_client: false });
    const own = await pages.http.post('/v2/oauth2/token').auth(robot.client.id, robot.secret!).type('form').send({ grant_type: 'client_credentials', scope: TRANSFER_SCOPE });
    expect(own.status).toBe(200);
    expect(own.body.access_token).toEqual(expect.any(String));
  });

  it('F9: the consents API takes only a token for the authorization service, not one minted for another resource server', async () => {
    const alice = await pages.userWithPassword('alice@example.org');
    const transferToken = (await pages.admin.tokens.issueToken('alice@example.org', null, TRANSFER_SCOPE)).token;
    const authToken = (await pages.admin.tokens.issueToken('alice@example.org', null, 'openid profile')).token;
    const refused = await pages.http.get(`/v2/api/identities/${alice.id}/consents`).set('Authorization', `Bearer ${transferToken}`);
    expect(refused.status).toBe(403);
    expect(refused.body.consents).toBeUndefined();
    const listed = await pages.http.get(`/v2/api/identities/${alice.id}/consents`).set('Authorization', `Bearer ${authToken}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ consents: [] });
  });

  it('also seen: a client name with a bidirectional override (U+202E) is refused, by the operator and by the template route', async () => {
    await expect(pages.admin.clients.addClient({ display_name: 'Portal \u202Egnp.exe', redirect_uris: [] })).rejects.toThrow('must not contain bidirectional control characters');
    const made = await pages.http.post('/v2/api/clients').send({ client: { template_id: CLI_TEMPLATE_CLIENT.id, name: 'Globus \u202ECLI' } });
    expect(made.status).toBe(400);
    expect(made.body.client).toBeUndefined();
  });

  it('also seen: a dependency named in brackets of a scope string at the token endpoint must exist, as at the authorization endpoint', async () => {
    const robot = await pages.admin.clients.addClient({ display_name: 'Robot', redirect_uris: [], public_client: false });
    const token = (scope: string) => pages.http.post('/v2/oauth2/token').auth(robot.client.id, robot.secret!).type('form').send({ grant_type: 'client_credentials', scope });
    const unknown = await token(`${TRANSFER_SCOPE}[urn:example:scope:nowhere.example.org:all]`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_scope', error_description: "Unknown scope 'urn:example:scope:nowhere.example.org:all'" });
    expect(unknown.body.access_token).toBeUndefined();
    expect((await token(`${TRANSFER_SCOPE}[openid]`)).status).toBe(200);
  });
});
