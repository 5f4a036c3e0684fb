import { BadRequestError } from '../shared/errors';
import { checkText } from '../shared/text';

/** A scope a client may ask for, with the words users read on the consents page. */
export interface ScopeState {
  id: string;
  /** e.g. urn:globus:auth:scope:transfer.api.globus.org:all */
  name: string;
  description: string;
  created_at: Date;
}

export function checkScopeName(name: string): string {
  if (!/^[A-Za-z0-9:._\-/+*#]{1,512}$/.test(name)) {
    throw new BadRequestError(`Invalid scope name '${name}'`);
  }
  return name;
}

export function checkScopeDescription(description: string): string {
  return checkText('description', description, { max: 1024, singleLine: true });
}

export interface ScopeRepository {
  add(scope: ScopeState): Promise<void>;
  findByName(name: string): Promise<ScopeState | null>;
  findByIds(ids: readonly string[]): Promise<ScopeState[]>;
  list(): Promise<ScopeState[]>;
}
