import type { SubscriptionRepository, SubscriptionState } from '@xfer/core';
import { In, type EntityManager } from 'typeorm';
import { SubscriptionAdministratorSchema, SubscriptionMemberSchema, SubscriptionSchema, type SubscriptionRecord } from '../records/schemas';
import { fromTime, toTime } from './mapping';

export class TypeormSubscriptionRepository implements SubscriptionRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(subscription: SubscriptionState) {
    const { member_ids, administrator_ids, ...record } = subscription;
    await this.manager.insert(SubscriptionSchema, { ...record, created_at: toTime(record.created_at) });
    for (const member_id of new Set(member_ids)) {
      await this.manager.insert(SubscriptionMemberSchema, { subscription_id: subscription.id, member_id });
    }
    for (const principal_id of new Set(administrator_ids)) await this.addAdministrator(subscription.id, principal_id);
  }

  async addAdministrator(subscriptionId: string, principalId: string) {
    const exists = await this.manager.findOneBy(SubscriptionAdministratorSchema, { subscription_id: subscriptionId, principal_id: principalId });
    if (!exists) await this.manager.insert(SubscriptionAdministratorSchema, { subscription_id: subscriptionId, principal_id: principalId });
  }

  async findById(id: string) {
    return this.withMembers(await this.manager.findBy(SubscriptionSchema, { id })).then((all) => all[0] ?? null);
  }

  async findByName(name: string) {
    return this.withMembers(await this.manager.findBy(SubscriptionSchema, { name })).then((all) => all[0] ?? null);
  }

  async listForMembers(memberIds: readonly string[]) {
    if (memberIds.length === 0) return [];
    const links = await this.manager.findBy(SubscriptionMemberSchema, { member_id: In([...memberIds]) });
    const ids = [...new Set(links.map((l) => l.subscription_id))];
    if (ids.length === 0) return [];
    const records = await this.manager.find(SubscriptionSchema, { where: { id: In(ids) }, order: { id: 'ASC' } });
    return this.withMembers(records);
  }

  async addMember(subscriptionId: string, memberId: string) {
    const exists = await this.manager.findOneBy(SubscriptionMemberSchema, { subscription_id: subscriptionId, member_id: memberId });
    if (!exists) await this.manager.insert(SubscriptionMemberSchema, { subscription_id: subscriptionId, member_id: memberId });
  }

  async list() {
    return this.withMembers(await this.manager.find(SubscriptionSchema, { order: { name: 'ASC' } }));
  }

  private async withMembers(records: SubscriptionRecord[]): Promise<SubscriptionState[]> {
    if (records.length === 0) return [];
    const ids = In(records.map((r) => r.id));
    const links = await this.manager.findBy(SubscriptionMemberSchema, { subscription_id: ids });
    const administrators = await this.manager.findBy(SubscriptionAdministratorSchema, { subscription_id: ids });
    return records.map((r) => ({
      ...r,
      created_at: fromTime(r.created_at),
      member_ids: links.filter((l) => l.subscription_id === r.id).map((l) => l.member_id),
      administrator_ids: administrators.filter((a) => a.subscription_id === r.id).map((a) => a.principal_id),
    }));
  }
}
