import { TestWorld } from '../testing/TestWorld';
import { bootstrapDemo, DEMO_LINKED_USERNAME, DEMO_SCOPES, DEMO_USERNAME } from './demo';

describe('demo bootstrap of npm start', () => {
  it('creates alice with a token, a password, a linked identity and consents once, then leaves the data alone', async () => {
    const world = new TestWorld();
    const lines = await bootstrapDemo(world.services, 'http://127.0.0.1:8080', 'http://127.0.0.1:8081');
    const token = /Access token for alice: (\S+)/.exec(lines.join('\n'))?.[1];
    const password = /with password (\S+)/.exec(lines.join('\n'))?.[1];
    const principal = await world.services.authentication.authenticate(token);
    expect(principal.primary.username).toBe(DEMO_USERNAME);
    expect([...principal.identityIds]).toHaveLength(2);
    const { secret } = await world.services.helperPages.signIn(DEMO_USERNAME, password!);
    const user = (await world.services.helperPages.signedIn(secret))!;
    expect(user.set.map((i) => i.username)).toEqual([DEMO_USERNAME, DEMO_LINKED_USERNAME]);
    const consents = await world.services.helperPages.consents(user);
    expect(consents.map((c) => c.client.display_name)).toEqual(['Example Research Portal']);
    expect(consents[0].consents.map((n) => n.children.length)).toEqual([1, 0]);
    for (const page of ['identities', 'consents', 'logout']) {
      expect(lines.join('\n')).toMatch(new RegExp(`http://127.0.0.1:8081/v2/web/${page}\\?client_id=`));
    }
    const again = await bootstrapDemo(world.services, 'http://127.0.0.1:8080', 'http://127.0.0.1:8081');
    expect(again.join('\n')).toContain('exists already');
    expect((await world.uow.repositories.clients.list()).map((c) => [c.display_name, c.public_client, c.redirect_uris])).toEqual([
      ['Example Research Portal', true, ['https://portal.example.org/']],
      ['xfer demo native app', true, ['http://127.0.0.1:8081/v2/web/auth-code']],
    ]);
    expect(lines.join('\n')).toMatch(/native app \(public client, PKCE\) [0-9a-f-]{36}/);
  });

  it('runs on a database with the standard catalogue installed, adding only the scopes it lacks', async () => {
    const world = new TestWorld();
    const { scopes: standard } = await world.services.admin.clients.installStandardCatalogue();
    expect(standard).toContain(DEMO_SCOPES.transfer.name);
    const before = (await world.uow.repositories.scopes.list()).length;
    const lines = await bootstrapDemo(world.services, 'http://127.0.0.1:8080', 'http://127.0.0.1:8081');
    expect(lines[0]).toMatch(/^Demo identity 'alice' created/);
    const names = (await world.uow.repositories.scopes.list()).map((scope) => scope.name);
    expect(names.filter((name) => name === DEMO_SCOPES.transfer.name)).toHaveLength(1);
    expect(names.length).toBeGreaterThanOrEqual(before);
  });

  it('gives alice her profile, a subscription of her own, the portal its branding and the scopes their dependencies', async () => {
    const world = new TestWorld();
    const lines = await bootstrapDemo(world.services, 'http://127.0.0.1:8080', 'http://127.0.0.1:8081');
    const repos = world.uow.repositories;
    expect(await repos.identities.findByUsername(DEMO_USERNAME)).toMatchObject({ name: 'Alice Example', email: 'alice@example.org', organization: 'Example University' });
    expect(await repos.identities.findByUsername(DEMO_LINKED_USERNAME)).toMatchObject({ name: 'Alice Example', email: null, organization: 'ORCID' });
    const alice = (await repos.identities.findByUsername(DEMO_USERNAME))!;
    const [subscription] = await repos.subscriptions.list();
    expect(subscription).toMatchObject({ name: 'Demo subscription', member_ids: [alice.id], administrator_ids: [alice.id] });
    expect(lines[0]).toBe(`Demo identity 'alice' created (linked: ${DEMO_LINKED_USERNAME}), with subscription ${subscription.id}.`);
    const portal = (await repos.clients.list())[0];
    expect(portal.branding).toEqual({ logo_url: null, primary_color: '#0b5d3b', background_color: '#f3f7f5' });
    const transfer = (await repos.scopes.findByName(DEMO_SCOPES.transfer.name))!;
    const dataAccess = (await repos.scopes.findByName(DEMO_SCOPES.dataAccess.name))!;
    expect(transfer.dependent_scope_ids).toEqual([dataAccess.id]);
    expect(lines.join('\n')).toContain(`redirect_name=${encodeURIComponent('Example Research Portal')}`);
    expect(lines.some((l) => l.startsWith('Try: curl -H "Authorization: Bearer '))).toBe(true);
    const again = await bootstrapDemo(world.services, 'http://127.0.0.1:8080', 'http://127.0.0.1:8081');
    expect(again).toEqual([
      "Demo identity 'alice' exists already.",
      '  new API token:      npx xfer token issue alice',
      "  new password:       echo 'a new password' | npx xfer identity set-password alice",
      '  helper pages:       http://127.0.0.1:8081/v2/web/identities',
    ]);
  });
});
