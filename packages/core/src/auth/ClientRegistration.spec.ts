import { BadRequestError, PermissionDeniedError, ResourceNotFoundError, TooManyRequestsError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { recordClientRevocations } from '../testing/revocations';
import { hashToken } from './AccessToken';
import { CLI_TEMPLATE_CLIENT, CLIENT_CREATION_LIMIT, ClientRegistrationService } from './ClientRegistration';
import { OWN_AUTH_CODE_PAGE } from './Client';

/** `globus login`'s first step: a confidential client made from the CLI's template, without credentials; and a client deleting itself. */
describe('client registration from a template', () => {
  let world: TestWorld;
  let registration: ClientRegistrationService;

  beforeEach(async () => {
    world = new TestWorld();
    await world.services.admin.clients.installStandardCatalogue();
    registration = new ClientRegistrationService(world.uow, world.clock, world.ids);
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: Error) => [error.constructor.name, error.message],
    );

  it("makes a confidential client with the template's redirect, its own secret (kept as a hash) and its name", async () => {
    const { client, secret } = await registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id.toUpperCase(), name: 'My laptop' }, '10.0.0.1');
    expect(client).toMatchObject({ display_name: 'My laptop', redirect_uris: [OWN_AUTH_CODE_PAGE], public_client: false, resource_server: null, template_id: CLI_TEMPLATE_CLIENT.id, created_at: world.clock.now() });
    expect(client.secret_hash).toBe(hashToken(secret));
    expect(secret.length).toBeGreaterThan(20);
    expect(await world.uow.repositories.clients.findById(client.id)).toEqual(client);
    const other = await registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'Desktop' }, '10.0.0.1');
    expect([other.client.id === client.id, other.secret === secret]).toEqual([false, false]);
  });

  it('refuses a missing or malformed template id, a missing or bad name, an unknown client and one that is no template', async () => {
    expect(await refusal(registration.createFromTemplate({ name: 'x' }, 'a'))).toEqual([BadRequestError.name, 'Invalid client.template_id: the id of a template client']);
    expect(await refusal(registration.createFromTemplate({ template_id: 42, name: 'x' }, 'a'))).toEqual([BadRequestError.name, 'Invalid client.template_id: the id of a template client']);
    expect(await refusal(registration.createFromTemplate({ template_id: 'not-a-uuid', name: 'x' }, 'a'))).toEqual([BadRequestError.name, 'Invalid client.template_id: the id of a template client']);
    expect(await refusal(registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id }, 'a'))).toEqual([BadRequestError.name, 'Invalid client.name: a name is required']);
    expect((await refusal(registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: '' }, 'a')))?.[0]).toBe(BadRequestError.name);
    const unknown = '99999999-9999-4999-8999-999999999999';
    expect(await refusal(registration.createFromTemplate({ template_id: unknown, name: 'x' }, 'a'))).toEqual([ResourceNotFoundError.name, `No client '${unknown}' to make a client from`]);
    const { client: made } = await registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'x' }, 'a');
    expect(await refusal(registration.createFromTemplate({ template_id: made.id, name: 'y' }, 'a'))).toEqual([BadRequestError.name, `Client '${made.id}' is not a template: no client can be made from it`]);
  });

  it('makes at most CLIENT_CREATION_LIMIT clients from one address in a window, counted per address, and again after it', async () => {
    const make = (address: string | undefined) => registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'x' }, address);
    for (let i = 0; i < CLIENT_CREATION_LIMIT.clients; i += 1) await make('10.0.0.9');
    // a minute later is still within the window
    world.clock.advance(60);
    const refused = await make('10.0.0.9').catch((error: TooManyRequestsError) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ message: `At most ${CLIENT_CREATION_LIMIT.clients} clients from one address in ${CLIENT_CREATION_LIMIT.windowSeconds / 60} minutes`, retryAfterSeconds: CLIENT_CREATION_LIMIT.windowSeconds });
    await make('10.0.0.10');
    await make(undefined);
    world.clock.advance(CLIENT_CREATION_LIMIT.windowSeconds + 1);
    await make('10.0.0.9');
    expect((await world.services.admin.clients.listClients()).filter((c) => c.template_id === CLI_TEMPLATE_CLIENT.id)).toHaveLength(CLIENT_CREATION_LIMIT.clients + 3);
  });

  it('counts the requests whose address is unknown together', async () => {
    for (let i = 0; i < CLIENT_CREATION_LIMIT.clients; i += 1) await registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'x' }, i % 2 === 0 ? undefined : 'unknown');
    await expect(registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'x' }, undefined)).rejects.toThrow(TooManyRequestsError);
    await expect(registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'From elsewhere' }, '10.0.0.1')).resolves.toMatchObject({
      client: { display_name: 'From elsewhere', template_id: CLI_TEMPLATE_CLIENT.id, public_client: false },
      secret: expect.any(String),
    });
  });

  it('lets a client delete itself and no other, revoking the tokens issued to it', async () => {
    const { client } = await registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'Laptop' }, 'a');
    const { client: other } = await registration.createFromTemplate({ template_id: CLI_TEMPLATE_CLIENT.id, name: 'Other' }, 'a');
    const revoked = recordClientRevocations(world.uow);
    await expect(registration.deleteOwn(client, other.id)).rejects.toThrow(new PermissionDeniedError('A client may delete only itself'));
    expect(revoked).toEqual([]);
    expect(await registration.deleteOwn(client, client.id.toUpperCase())).toEqual(client);
    const at = world.clock.now().toISOString();
    expect(revoked).toEqual([`access ${client.id} ${at}`, `refresh ${client.id} ${at}`]);
    expect(await world.uow.repositories.clients.findById(client.id)).toBeNull();
    expect(await world.uow.repositories.clients.findById(other.id)).not.toBeNull();
  });
});
