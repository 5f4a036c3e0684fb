import type { Principal } from '../auth/Principal';
import type { ReadOptions } from '../endpoint/EndpointRepository';
import { createCoreServices, type CoreOptions, type CoreServices } from '../services';
import type { UnitOfWork } from '../shared/UnitOfWork';
import { FixedClock, SequentialIdGenerator } from './fakes';
import { InMemoryUnitOfWork } from './InMemoryUnitOfWork';

/**
 * A core wired to a unit of work (in-memory unless given), with shortcuts to make users and
 * endpoints: the object mother of the test suites.
 */
export class TestWorld {
  readonly clock = new FixedClock();
  // ids with letters: an id sent in upper case must still be found
  readonly ids = new SequentialIdGenerator('abcdef');
  readonly services: CoreServices;

  constructor(
    readonly uow: UnitOfWork = new InMemoryUnitOfWork(),
    options: CoreOptions = {},
  ) {
    this.services = createCoreServices(uow, this.clock, this.ids, options);
  }

  /** Adds an identity and returns its token and principal. */
  async user(username: string): Promise<{ id: string; token: string; principal: () => Promise<Principal> }> {
    const identity = await this.services.admin.identities.addIdentity({ username, name: username, email: null });
    const { token } = await this.services.admin.tokens.issueToken(username);
    return { id: identity.id, token, principal: () => this.services.authentication.authenticate(token) };
  }

  async principal(username: string): Promise<Principal> {
    const identity = await this.uow.repositories.identities.findByUsername(username);
    if (!identity) throw new Error(`no identity ${username}`);
    return this.services.authentication.principalOf(identity.id);
  }

  /** Adds identities (each with a token) and returns their principals, in order. */
  async principals(...usernames: string[]): Promise<Principal[]> {
    for (const username of usernames) await this.user(username);
    return Promise.all(usernames.map((username) => this.principal(username)));
  }

  /** The `forUpdate` option of every endpoint read `call` makes: which of them lock the endpoint. */
  async endpointLocks(call: () => Promise<unknown>): Promise<(ReadOptions | undefined)[]> {
    const endpoints = this.uow.repositories.endpoints;
    const read = endpoints.findWithRolesOf;
    const locks: (ReadOptions | undefined)[] = [];
    endpoints.findWithRolesOf = (key, principalIds, options) => {
      locks.push(options);
      return read.call(endpoints, key, principalIds, options);
    };
    try {
      await call();
    } finally {
      endpoints.findWithRolesOf = read;
    }
    return locks;
  }

  /** A subscription whose only member is `username`. */
  async subscriptionFor(username: string, name = `${username}-subscription`): Promise<string> {
    return this.services.admin.subscriptions.addSubscription(name, [username]);
  }
}
