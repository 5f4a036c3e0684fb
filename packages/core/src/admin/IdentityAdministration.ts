import { hashPassword, type PasswordPolicy } from '../auth/password';
import { checkGroupName } from '../auth/Group';
import { CLIENTS_DOMAIN, IdentitySet, isClientUsername, newIdentity, type IdentityState } from '../auth/Identity';
import { BadRequestError, ConflictError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';

import type { RepositoriesOf } from '../shared/UnitOfWork';
import { groupNamed, identityNamed, identitySetOf } from './lookups';

/** The repositories IdentityAdministration uses. */
export type IdentityAdminRepositories = RepositoriesOf<'groups' | 'identities' | 'sessions'>;

/** Identities (users), their passwords and linked sets, and groups. */
export class IdentityAdministration {
  constructor(
    private readonly uow: IdentityAdminRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async addIdentity(input: { username: string; name?: string | null; email?: string | null; organization?: string | null }): Promise<IdentityState> {
    return this.uow.transaction(async (repos) => {
      // Stryker disable next-line ConditionalExpression,BlockStatement: the repository refuses a second username with the same ConflictError (its contract); this spares the write
      if (await repos.identities.findByUsername(input.username)) {
        throw new ConflictError(`Identity '${input.username}' already exists`);
      }
      if (isClientUsername(input.username)) throw new BadRequestError(`Invalid username '${input.username}': the domain ${CLIENTS_DOMAIN} is reserved for clients' own identities`);
      const identity = newIdentity({ ...input, id: this.ids.uuid(), now: this.clock.now() });
      await repos.identities.add(identity);
      return identity;
    });
  }
  /** Links `other`'s whole identity set into `username`'s. */
  async linkIdentities(username: string, other: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const set = await identitySetOf(repos, username);
      set.link(await identitySetOf(repos, other), this.clock.now());
      await repos.identities.update(set.changes());
    });
  }
  /** Takes an identity out of its set; when it was the set's primary, the next linked one becomes primary. */
  async unlinkIdentity(username: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const identity = await identityNamed(repos, username);
      const set = new IdentitySet(await repos.identities.listSet(identity.set_id));
      set.unlink(identity.id);
      await repos.identities.update(set.changes());
    });
  }
  async listIdentities(): Promise<IdentityState[]> {
    return this.uow.repositories.identities.list();
  }
  /** `policy`: 'fixture' for a stand-in's seed (any non-empty password). */
  async setPassword(username: string, password: string, policy: PasswordPolicy = 'person'): Promise<void> {
    const hash = await hashPassword(password, policy);
    await this.uow.transaction(async (repos) => {
      const identity = await identityNamed(repos, username);
      await repos.identities.update([{ ...identity, password_hash: hash }]);
      // whoever signed in with the old password is signed out
      await repos.sessions.deleteForIdentity(identity.id);
    });
  }
  /** Sets a password as its stored hash (an export's round trip: the password itself is never stored). */
  async setPasswordHash(username: string, hash: string): Promise<void> {
    if (!/^scrypt\$\d{1,9}\$\d{1,3}\$\d{1,3}\$[A-Za-z0-9+/=]{1,200}\$[A-Za-z0-9+/=]{1,200}$/.test(hash)) throw new BadRequestError('Invalid password_hash: a hash as xfer export writes it');
    await this.uow.transaction(async (repos) => {
      const identity = await identityNamed(repos, username);
      await repos.identities.update([{ ...identity, password_hash: hash }]);
    });
  }
  async addGroup(name: string): Promise<string> {
    return this.uow.transaction(async (repos) => {
      checkGroupName(name);
      // Stryker disable next-line ConditionalExpression: the repository refuses a second name with the same ConflictError (its contract); this spares the write
      if (await repos.groups.findByName(name)) throw new ConflictError(`Group '${name}' already exists`);
      const id = this.ids.uuid();
      await repos.groups.add({ id, name, created_at: this.clock.now() });
      return id;
    });
  }
  async addGroupMember(group: string, username: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const g = await groupNamed(repos, group);
      const identity = await identityNamed(repos, username);
      await repos.groups.addMember(g.id, identity.id);
    });
  }
  async removeGroupMember(group: string, username: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const g = await groupNamed(repos, group);
      const identity = await identityNamed(repos, username);
      await repos.groups.removeMember(g.id, identity.id);
    });
  }
  async listGroups(): Promise<{ id: string; name: string; members: string[] }[]> {
    const repos = this.uow.repositories;
    const groups = await repos.groups.list();
    return Promise.all(
      groups.map(async (g) => {
        const members = await Promise.all((await repos.groups.memberIds(g.id)).map((id) => repos.identities.findById(id)));
        return { id: g.id, name: g.name, members: members.flatMap((m) => (m ? [m.username] : [])) };
      }),
    );
  }
}
