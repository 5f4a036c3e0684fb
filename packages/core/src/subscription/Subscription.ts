import { BadRequestError } from '../shared/errors';
import { checkText, isUuid } from '../shared/text';

export interface SubscriptionState {
  id: string;
  name: string;
  /** Identity or group ids whose members may attach endpoints to this subscription. */
  member_ids: string[];
  /** Identity or group ids that administer the subscription: they verify its endpoints (subscription_admin_verified). */
  administrator_ids: string[];
  created_at: Date;
}

export function checkSubscriptionName(name: string): string {
  return checkText('name', name, { max: 256, singleLine: true });
}

/**
 * What `subscription_id` on an endpoint becomes: a subscription of the caller's, the caller's only
 * one for `DEFAULT`, or null.
 */
export function resolveSubscriptionId(requested: string | null, available: readonly SubscriptionState[]): string | null {
  if (requested === null) return null;
  if (requested === 'DEFAULT') {
    if (available.length === 1) return available[0].id;
    if (available.length === 0) {
      throw new BadRequestError('Invalid subscription_id: DEFAULT was given but you have access to no subscription');
    }
    const ids = available.map((s) => s.id).sort().join(', ');
    throw new BadRequestError(`Please specify the subscription ID to use. You currently have access to: ${ids}`);
  }
  if (!isUuid(requested)) {
    throw new BadRequestError(`Invalid subscription_id: '${requested}' is not a subscription id or DEFAULT`);
  }
  const match = available.find((s) => s.id.toLowerCase() === requested.toLowerCase());
  if (!match) {
    throw new BadRequestError(`Invalid subscription_id: you are not a member of subscription '${requested}'`);
  }
  return match.id;
}

export interface SubscriptionRepository {
  add(subscription: SubscriptionState): Promise<void>;
  findById(id: string): Promise<SubscriptionState | null>;
  findByName(name: string): Promise<SubscriptionState | null>;
  /** Subscriptions any of these identity or group ids is a member of. */
  listForMembers(memberIds: readonly string[]): Promise<SubscriptionState[]>;
  addMember(subscriptionId: string, memberId: string): Promise<void>;
  addAdministrator(subscriptionId: string, principalId: string): Promise<void>;
  list(): Promise<SubscriptionState[]>;
}
