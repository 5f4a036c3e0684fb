import { BadRequestError, PermissionDeniedError, ResourceNotFoundError, TooManyRequestsError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { hashToken, newTokenSecret } from './AccessToken';
import { checkClientDisplayName, OWN_AUTH_CODE_PAGE, type ClientState } from './Client';
import { DEFAULT_SIGN_IN_THROTTLE } from './SignInThrottle';

export type ClientRegistrationRepositories = RepositoriesOf<'accessTokens' | 'clients' | 'refreshTokens' | 'signInFailures'>;

/**
 * The hosted service's CLI as a client, present out of the box: public, its redirect this
 * service's own auth-code page. `globus login` first makes a confidential client of its own from
 * it (POST /v2/api/clients with this id as `template_id`), without credentials.
 */
export const CLI_TEMPLATE_CLIENT = {
  id: '95fdeba8-fac2-42bd-a357-e068d82ff78e',
  display_name: 'Globus CLI',
  redirect_uris: [OWN_AUTH_CODE_PAGE],
} as const;

/** The clients others may be made from. */
const TEMPLATE_CLIENT_IDS: readonly string[] = [CLI_TEMPLATE_CLIENT.id];

/**
 * Clients one address may make from templates per window: a person's logins and reinstalls, not a
 * flood (the request needs no credentials). Counted in the database, so every instance shares it;
 * the window is the sign-in throttle's, whose housekeeping forgets older counts.
 */
export const CLIENT_CREATION_LIMIT = { clients: 20, windowSeconds: DEFAULT_SIGN_IN_THROTTLE.windowSeconds };

/** A client made from a template, with its secret (shown once). */
export interface RegisteredClient {
  client: ClientState;
  secret: string;
}

/** The Auth API's client registration as the hosted CLI uses it: clients made from a template, and deleted by themselves. */
export class ClientRegistrationService {
  constructor(
    private readonly uow: ClientRegistrationRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** A new confidential client made from a template client (its redirect URIs), named `name`. */
  async createFromTemplate(input: { template_id?: unknown; name?: unknown }, address: string | undefined): Promise<RegisteredClient> {
    // Stryker disable next-line StringLiteral: any text that is no UUID is refused alike
    const templateId = typeof input.template_id === 'string' ? input.template_id.toLowerCase() : '';
    if (!isUuid(templateId)) throw new BadRequestError('Invalid client.template_id: the id of a template client');
    if (typeof input.name !== 'string') throw new BadRequestError('Invalid client.name: a name is required');
    const name = checkClientDisplayName(input.name);
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const template = await repos.clients.findById(templateId);
      if (!template) throw new ResourceNotFoundError(`No client '${templateId}' to make a client from`);
      if (!TEMPLATE_CLIENT_IDS.includes(template.id)) throw new BadRequestError(`Client '${template.id}' is not a template: no client can be made from it`);
      const counter = hashToken(`client-template:${address ?? 'unknown'}`);
      const made = await repos.signInFailures.countSince(counter, new Date(now.getTime() - CLIENT_CREATION_LIMIT.windowSeconds * 1000));
      if (made >= CLIENT_CREATION_LIMIT.clients) {
        throw new TooManyRequestsError(`At most ${CLIENT_CREATION_LIMIT.clients} clients from one address in ${CLIENT_CREATION_LIMIT.windowSeconds / 60} minutes`, CLIENT_CREATION_LIMIT.windowSeconds);
      }
      const secret = newTokenSecret();
      const client: ClientState = {
        id: this.ids.uuid(),
        display_name: name,
        branding: template.branding,
        redirect_uris: [...template.redirect_uris],
        public_client: false,
        secret_hash: hashToken(secret),
        resource_server: null,
        template_id: template.id,
        created_at: now,
      };
      await repos.clients.add(client);
      await repos.signInFailures.add([counter], now);
      return { client, secret };
    });
  }

  /** A client deletes itself (the CLI's `logout --delete-client`): its tokens are revoked with it. */
  async deleteOwn(caller: ClientState, clientId: string): Promise<ClientState> {
    if (caller.id !== clientId.toLowerCase()) throw new PermissionDeniedError('A client may delete only itself');
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      await repos.accessTokens.revokeForClient(caller.id, now);
      await repos.refreshTokens.revokeForClient(caller.id, now);
      await repos.clients.delete(caller.id);
      return caller;
    });
  }
}
