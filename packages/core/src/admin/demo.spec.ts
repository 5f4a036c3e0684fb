import { TestWorld } from '../testing/TestWorld';
import { bootstrapDemo, DEMO_LINKED_USERNAME, DEMO_USERNAME } from './demo';

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
});
