import { checkText } from '../shared/text';

export interface PauseRuleState {
  id: string;
  endpoint_id: string;
  message: string;
  start_time: Date | null;
  /** null: the rule applies to everyone. */
  identity_id: string | null;
  pause_ls: boolean;
  pause_mkdir: boolean;
  pause_rename: boolean;
  pause_task_delete: boolean;
  pause_task_transfer_write: boolean;
  pause_task_transfer_read: boolean;
  modified_by: string;
  modified_by_id: string;
  created_by_host_manager: boolean;
}

export type PauseFlags = Pick<
  PauseRuleState,
  'pause_ls' | 'pause_mkdir' | 'pause_rename' | 'pause_task_delete' | 'pause_task_transfer_write' | 'pause_task_transfer_read'
>;

export const ALL_PAUSED: PauseFlags = {
  pause_ls: true,
  pause_mkdir: true,
  pause_rename: true,
  pause_task_delete: true,
  pause_task_transfer_write: true,
  pause_task_transfer_read: true,
};

export function checkPauseMessage(message: string): string {
  return checkText('message', message, { max: 4096 });
}

/** A rule affects a caller when it names no identity or one of the caller's identities. */
export function pauseRuleAffects(rule: PauseRuleState, identityIds: ReadonlySet<string>): boolean {
  return rule.identity_id === null || identityIds.has(rule.identity_id);
}

/** A rule pauses a caller's operations once it has started and when it affects the caller. */
export function pauseRuleInForce(rule: PauseRuleState, identityIds: ReadonlySet<string>, now: Date): boolean {
  return (rule.start_time === null || rule.start_time.getTime() <= now.getTime()) && pauseRuleAffects(rule, identityIds);
}

export interface PauseRuleRepository {
  add(rule: PauseRuleState): Promise<void>;
  listForEndpoint(endpointId: string): Promise<PauseRuleState[]>;
  deleteForEndpoint(endpointId: string): Promise<void>;
  findById(id: string): Promise<PauseRuleState | null>;
  /** Writes back a rule's message, identity, start time, flags and who modified it. */
  update(rule: PauseRuleState): Promise<void>;
  delete(id: string): Promise<void>;
}
