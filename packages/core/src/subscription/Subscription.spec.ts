import { BadRequestError } from '../shared/errors';
import { checkSubscriptionName, resolveSubscriptionId, type SubscriptionState } from './Subscription';

const subscription = (id: string): SubscriptionState => ({ id, name: `s-${id}`, member_ids: [], administrator_ids: [], created_at: new Date(0) });
const A = subscription('0f8fad5b-d9cb-469f-a165-70867728950e');
const B = subscription('0a8fad5b-d9cb-469f-a165-70867728950e');

describe('subscription_id on an endpoint', () => {
  it('is null when cleared', () => {
    expect(resolveSubscriptionId(null, [A])).toBeNull();
  });

  it("resolves DEFAULT to the caller's only subscription, and refuses it with none or several (naming them, sorted)", () => {
    expect(resolveSubscriptionId('DEFAULT', [A])).toBe(A.id);
    expect(() => resolveSubscriptionId('DEFAULT', [])).toThrow('Invalid subscription_id: DEFAULT was given but you have access to no subscription');
    expect(() => resolveSubscriptionId('DEFAULT', [A, B])).toThrow(`Please specify the subscription ID to use. You currently have access to: ${B.id}, ${A.id}`);
    expect(() => resolveSubscriptionId('default', [A])).toThrow(/is not a subscription id or DEFAULT/);
  });

  it("takes an id of one of the caller's subscriptions, in any case", () => {
    expect(resolveSubscriptionId(A.id.toUpperCase(), [B, A])).toBe(A.id);
    expect(() => resolveSubscriptionId(B.id, [A])).toThrow(`Invalid subscription_id: you are not a member of subscription '${B.id}'`);
    expect(() => resolveSubscriptionId('not-an-id', [A])).toThrow(BadRequestError);
  });

  it('has a name of one line, at most 256 characters', () => {
    expect(checkSubscriptionName('s'.repeat(256))).toHaveLength(256);
    expect(() => checkSubscriptionName('s'.repeat(257))).toThrow('Invalid name: must be at most 256 characters');
    expect(() => checkSubscriptionName('a\nb')).toThrow('Invalid name: must not contain new lines');
  });
});
