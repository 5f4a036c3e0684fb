import type { AccessPermissions, AccessPrincipalType, AccessRuleRepository, AccessRuleState } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { AccessRuleSchema, type AccessRuleRecord } from '../records/schemas';
import type { Sql } from '../engine/Sql';
import { fromTime, fromTimeOrNull, toTime, toTimeOrNull } from './mapping';

const fromRecord = (r: AccessRuleRecord): AccessRuleState => ({
  ...r,
  principal_type: r.principal_type as AccessPrincipalType,
  permissions: r.permissions as AccessPermissions,
  create_time: fromTime(r.create_time),
  expiration_date: fromTimeOrNull(r.expiration_date),
});

export class TypeormAccessRuleRepository implements AccessRuleRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}
  async add(rule: AccessRuleState) {
    await this.manager.insert(AccessRuleSchema, { ...rule, create_time: toTime(rule.create_time), expiration_date: toTimeOrNull(rule.expiration_date) });
  }
  async listForEndpoint(endpointId: string) {
    // a plain read: a share may have 1,000 rules, and entity hydration would cost more than the query
    const rows = await this.sql.rows<AccessRuleRecord>('SELECT * FROM access_rules WHERE endpoint_id = ? ORDER BY create_time, id', [endpointId]);
    return rows.map(fromRecord);
  }
  async findById(id: string) {
    const r = await this.manager.findOneBy(AccessRuleSchema, { id });
    return r ? fromRecord(r) : null;
  }
  async update(rule: AccessRuleState) {
    await this.manager.update(AccessRuleSchema, { id: rule.id }, { permissions: rule.permissions, expiration_date: toTimeOrNull(rule.expiration_date) });
  }
  async delete(id: string) {
    await this.manager.delete(AccessRuleSchema, { id });
  }
  async deleteForEndpoint(endpointId: string) {
    await this.manager.delete(AccessRuleSchema, { endpoint_id: endpointId });
  }
  async sharesGranting(principalIds: readonly string[], now: Date) {
    const rows = await this.sql.rows<{ endpoint_id: string }>(
      `SELECT DISTINCT a.endpoint_id FROM access_rules a
       WHERE (a.principal_type = 'all_authenticated_users' OR (a.principal_type IN ('identity', 'group') AND a.principal IN (${this.sql.list(principalIds)})))
         AND (a.expiration_date IS NULL OR a.expiration_date > ?)
       ORDER BY a.endpoint_id`,
      [...principalIds, toTime(now)],
    );
    return rows.map((r) => r.endpoint_id);
  }
}
