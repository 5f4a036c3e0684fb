import { BadRequestError } from '../shared/errors';

export interface GroupState {
  id: string;
  name: string;
  created_at: Date;
}

export function checkGroupName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,127}$/.test(name)) {
    throw new BadRequestError(`Invalid group name '${name}': letters, digits, space and . _ -, at most 128`);
  }
  return name;
}

export interface GroupRepository {
  add(group: GroupState): Promise<void>;
  findByName(name: string): Promise<GroupState | null>;
  findById(id: string): Promise<GroupState | null>;
  addMember(groupId: string, identityId: string): Promise<void>;
  removeMember(groupId: string, identityId: string): Promise<void>;
  list(): Promise<GroupState[]>;
  memberIds(groupId: string): Promise<string[]>;
  /** Ids of the groups any of these identities belongs to. */
  groupIdsOf(identityIds: readonly string[]): Promise<string[]>;
}
