import type { PauseRuleRepository, PauseRuleState } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { PauseRuleSchema, type PauseRuleRecord } from '../records/schemas';
import { bool, fromTimeOrNull, toTimeOrNull } from './mapping';

const fromRecord = (r: PauseRuleRecord): PauseRuleState => ({
  ...r,
  start_time: fromTimeOrNull(r.start_time),
  pause_ls: bool(r.pause_ls),
  pause_mkdir: bool(r.pause_mkdir),
  pause_rename: bool(r.pause_rename),
  pause_task_delete: bool(r.pause_task_delete),
  pause_task_transfer_write: bool(r.pause_task_transfer_write),
  pause_task_transfer_read: bool(r.pause_task_transfer_read),
  created_by_host_manager: bool(r.created_by_host_manager),
});

export class TypeormPauseRuleRepository implements PauseRuleRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(rule: PauseRuleState) {
    await this.manager.insert(PauseRuleSchema, { ...rule, start_time: toTimeOrNull(rule.start_time) });
  }

  async listForEndpoint(endpointId: string) {
    const records = await this.manager.find(PauseRuleSchema, { where: { endpoint_id: endpointId }, order: { id: 'ASC' } });
    return records.map(fromRecord);
  }

  async deleteForEndpoint(endpointId: string) {
    await this.manager.delete(PauseRuleSchema, { endpoint_id: endpointId });
  }

  async findById(id: string) {
    const r = await this.manager.findOneBy(PauseRuleSchema, { id });
    return r ? fromRecord(r) : null;
  }

  async update(rule: PauseRuleState) {
    const { id, ...fields } = rule;
    await this.manager.update(PauseRuleSchema, { id }, { ...fields, start_time: toTimeOrNull(rule.start_time) });
  }

  async delete(id: string) {
    await this.manager.delete(PauseRuleSchema, { id });
  }
}
