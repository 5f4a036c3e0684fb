import { hashToken } from '../auth/AccessToken';
import { CLI_TEMPLATE_CLIENT } from '../auth/ClientRegistration';
import { CONSOLE_CLIENT, STANDARD_SCOPES } from '../auth/StandardCatalogue';
import { BadRequestError, ResourceNotFoundError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { recordClientRevocations } from '../testing/revocations';

/** The operator's clients: secrets given, generated or restored as hashes; removal; the console's own client; the standard catalogue. */
describe('client administration', () => {
  let world: TestWorld;
  const clients = () => world.services.admin.clients;

  beforeEach(() => {
    world = new TestWorld();
  });

  it("takes a confidential client's secret as given or as an export's hash, and refuses either for a public client or in the wrong form", async () => {
    const given = await clients().addClient({ display_name: 'Seeded', public_client: false, secret: 'a-secret!' });
    expect(given).toMatchObject({ secret: 'a-secret!', client: { public_client: false, secret_hash: hashToken('a-secret!') } });
    const hash = 'ab'.repeat(32);
    const restored = await clients().addClient({ display_name: 'Restored', public_client: false, secret_hash: hash });
    expect(restored).toMatchObject({ secret: null, client: { secret_hash: hash } });
    const generated = await clients().addClient({ display_name: 'Generated', public_client: false });
    expect(generated.client.secret_hash).toBe(hashToken(generated.secret!));
    expect(await clients().addClient({ display_name: 'Public' })).toMatchObject({ secret: null, client: { public_client: true, secret_hash: null, redirect_uris: [], resource_server: null } });
    const badHash = new BadRequestError("Invalid secret_hash: a confidential client's, as xfer export writes it");
    for (const secret_hash of ['AB'.repeat(32), 'ab'.repeat(31), `${'ab'.repeat(32)}0`, `x${'ab'.repeat(32)}`]) await expect(clients().addClient({ display_name: 'X', public_client: false, secret_hash })).rejects.toThrow(badHash);
    await expect(clients().addClient({ display_name: 'X', secret_hash: hash })).rejects.toThrow(badHash);
    const badSecret = new BadRequestError("Invalid secret: a confidential client's, 8 to 512 printable ASCII characters without spaces");
    for (const secret of ['short!7', 'with space', 'x'.repeat(513), 'caf\u00e9-secret', `\u0001${'x'.repeat(10)}`]) await expect(clients().addClient({ display_name: 'X', public_client: false, secret })).rejects.toThrow(badSecret);
    await expect(clients().addClient({ display_name: 'X', secret: 'a-secret!' })).rejects.toThrow(badSecret);
    expect((await clients().addClient({ display_name: 'Longest', public_client: false, secret: '~'.repeat(512) })).secret).toBe('~'.repeat(512));
    expect((await clients().listClients()).map((c) => c.display_name)).toEqual(expect.arrayContaining(['Seeded', 'Restored', 'Generated', 'Public', 'Longest']));
  });

  it('makes a resource server only of a confidential client', async () => {
    await expect(clients().addClient({ display_name: 'RS', resource_server: 'transfer.api.globus.org' })).rejects.toThrow(new BadRequestError('A resource server must be a confidential client'));
    expect((await clients().addClient({ display_name: 'RS', public_client: false, resource_server: 'transfer.api.globus.org' })).client.resource_server).toBe('transfer.api.globus.org');
    expect((await clients().addClient({ display_name: 'None', public_client: false, resource_server: null })).client.resource_server).toBeNull();
  });

  it('removes a client by its id in any case, revoking its tokens; an unknown or malformed id is named', async () => {
    const { client } = await clients().addClient({ display_name: 'Gone soon', public_client: false });
    const revoked = recordClientRevocations(world.uow);
    await clients().removeClient(client.id.toUpperCase());
    const at = world.clock.now().toISOString();
    expect(revoked).toEqual([`access ${client.id} ${at}`, `refresh ${client.id} ${at}`]);
    expect(await world.uow.repositories.clients.findById(client.id)).toBeNull();
    await expect(clients().removeClient(client.id)).rejects.toThrow(new ResourceNotFoundError(`No such client '${client.id}'`));
    await expect(clients().removeClient('not-an-id')).rejects.toThrow(new ResourceNotFoundError("No such client 'not-an-id'"));
  });

  it("registers the console's client, then brings it up to date: new addresses and secret, its branding and creation time kept", async () => {
    const first = await clients().registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: ['http://127.0.0.1:8082/console/callback'], secret: 's'.repeat(16) });
    expect(first).toMatchObject({ id: CONSOLE_CLIENT.id, display_name: CONSOLE_CLIENT.display_name, public_client: false, secret_hash: hashToken('s'.repeat(16)), resource_server: null, template_id: null, created_at: world.clock.now() });
    const created = world.clock.now();
    // branded by an operator since (as an older release's row would hold it)
    await world.uow.repositories.clients.delete(CONSOLE_CLIENT.id);
    await world.uow.repositories.clients.add({ ...first, branding: { ...first.branding, primary_color: '#0b5d3b' } });
    world.clock.advance(3600);
    const again = await clients().registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: ['https://console.example.org/console/callback'], secret: 't'.repeat(512) });
    expect(again).toMatchObject({ redirect_uris: ['https://console.example.org/console/callback'], secret_hash: hashToken('t'.repeat(512)), created_at: created, branding: { primary_color: '#0b5d3b' } });
    expect(await world.uow.repositories.clients.findById(CONSOLE_CLIENT.id)).toEqual(again);
    for (const secret of ['s'.repeat(15), 's'.repeat(513), `${'s'.repeat(15)} `]) {
      await expect(clients().registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: [], secret })).rejects.toThrow(new BadRequestError('Invalid secret: 16 to 512 printable ASCII characters without spaces'));
    }
    await expect(clients().registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: ['not a uri'], secret: 's'.repeat(16) })).rejects.toThrow(BadRequestError);
  });

  it('installs the standard catalogue once per version: its scopes with their dependencies, the CLI template; what an operator removes stays removed', async () => {
    const added = await clients().installStandardCatalogue();
    expect(added).toEqual({ scopes: STANDARD_SCOPES.map((s) => s.name), clients: [CLI_TEMPLATE_CLIENT.id] });
    const template = await world.uow.repositories.clients.findById(CLI_TEMPLATE_CLIENT.id);
    expect(template).toMatchObject({ display_name: CLI_TEMPLATE_CLIENT.display_name, redirect_uris: [...CLI_TEMPLATE_CLIENT.redirect_uris], public_client: true, secret_hash: null, resource_server: null, template_id: null });
    for (const standard of STANDARD_SCOPES) {
      const scope = (await world.uow.repositories.scopes.findByName(standard.name))!;
      expect(scope.description).toBe(standard.description);
      const dependencies = await Promise.all((standard.dependsOn ?? []).map(async (name) => (await world.uow.repositories.scopes.findByName(name))!.id));
      expect(scope.dependent_scope_ids).toEqual(dependencies);
    }
    await clients().removeClient(CLI_TEMPLATE_CLIENT.id);
    expect(await clients().installStandardCatalogue()).toEqual({ scopes: [], clients: [] });
    expect(await world.uow.repositories.clients.findById(CLI_TEMPLATE_CLIENT.id)).toBeNull();
  });

  it('adds only what is missing when the catalogue is installed over what an operator made', async () => {
    const first = STANDARD_SCOPES[0]!;
    await clients().addScope(first.name, 'made by hand');
    const added = await clients().installStandardCatalogue();
    expect(added.scopes).not.toContain(first.name);
    expect(added.scopes).toHaveLength(STANDARD_SCOPES.length - 1);
    expect((await world.uow.repositories.scopes.findByName(first.name))!.description).toBe('made by hand');
  });
});
