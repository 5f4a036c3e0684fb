import { ConflictError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { checkSubscriptionName } from '../subscription/Subscription';

import type { RepositoriesOf } from '../shared/UnitOfWork';
import { principalNamed, subscriptionNamed } from './lookups';

/** The repositories SubscriptionAdministration uses. */
export type SubscriptionAdminRepositories = RepositoriesOf<'groups' | 'identities' | 'subscriptions'>;

/** Subscriptions, their members and administrators. */
export class SubscriptionAdministration {
  constructor(
    private readonly uow: SubscriptionAdminRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * A subscription whose members (usernames or group names) may attach endpoints to it; its
   * administrators (usernames or group names) verify them (subscription_admin_verified).
   */
  async addSubscription(name: string, members: readonly string[], administrators: readonly string[] = []): Promise<string> {
    return this.uow.transaction(async (repos) => {
      checkSubscriptionName(name);
      if (await repos.subscriptions.findByName(name)) throw new ConflictError(`Subscription '${name}' already exists`);
      const memberIds: string[] = [];
      for (const member of members) memberIds.push((await principalNamed(repos, member)).id);
      const administratorIds: string[] = [];
      for (const administrator of administrators) administratorIds.push((await principalNamed(repos, administrator)).id);
      const id = this.ids.uuid();
      await repos.subscriptions.add({ id, name, member_ids: memberIds, administrator_ids: administratorIds, created_at: this.clock.now() });
      return id;
    });
  }
  /** Makes a user or group (by name) an administrator of a subscription (by name or id). */
  async addSubscriptionAdministrator(subscription: string, administrator: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const found = await subscriptionNamed(repos, subscription);
      await repos.subscriptions.addAdministrator(found.id, (await principalNamed(repos, administrator)).id);
    });
  }
  async addSubscriptionMember(subscription: string, member: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const s = await subscriptionNamed(repos, subscription);
      await repos.subscriptions.addMember(s.id, (await principalNamed(repos, member)).id);
    });
  }
  async listSubscriptions() {
    return this.uow.repositories.subscriptions.list();
  }
}
