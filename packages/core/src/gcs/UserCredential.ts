import { InvalidFieldError } from '../shared/errors';
import { checkText } from '../shared/text';

/**
 * A user credential of a storage gateway (GCS's): which local account an identity uses there.
 * xfer's node runs as one account, so `username` is recorded, not switched to; a guest collection
 * made with a credential acts with the rights of the credential's identity.
 */
export interface UserCredentialState {
  id: string;
  node_id: string;
  storage_gateway_id: string;
  identity_id: string;
  username: string;
  display_name: string | null;
  /** GCS's posix_user_credential_policies#1.0.0, kept as sent. */
  policies: Record<string, unknown>;
  created_at: Date;
}

export type UserCredentialInput = Partial<Pick<UserCredentialState, 'username' | 'display_name' | 'policies' | 'identity_id' | 'storage_gateway_id'>>;

/** A local account name: letters, digits, `._-`, not a dash first; 64 at most (a client's id, 36, fits). */
const LOCAL_USERNAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}$/;

export function checkLocalUsername(field: string, value: string): string {
  if (!LOCAL_USERNAME.test(value)) throw new InvalidFieldError(field, 'a local account name: 1 to 64 letters, digits, ., _ or -, not a dash first');
  return value;
}

/** The local account an identity maps to when none is named: its username without its domain (GCS's `username_without_domain`), when that is an account name. */
export function defaultLocalUsername(identityUsername: string): string | null {
  const name = identityUsername.includes('@') ? identityUsername.slice(0, identityUsername.lastIndexOf('@')) : identityUsername;
  return LOCAL_USERNAME.test(name) ? name : null;
}

/** The credential with the fields `input` sends applied (the gateway and the identity are fixed at creation). */
export function applyUserCredentialInput(credential: UserCredentialState, input: UserCredentialInput): UserCredentialState {
  const next = structuredClone(credential);
  if (input.username !== undefined) next.username = checkLocalUsername('username', input.username);
  if (input.display_name !== undefined) next.display_name = input.display_name === null ? null : checkText('display_name', input.display_name, { max: 128, singleLine: true });
  if (input.policies !== undefined) next.policies = input.policies;
  return next;
}

export interface UserCredentialRepository {
  /** Adds a credential; false, with nothing written, when its identity has one on that gateway already. */
  add(credential: UserCredentialState): Promise<boolean>;
  findById(id: string): Promise<UserCredentialState | null>;
  /** A node's credentials, oldest first; of one gateway when named. */
  listForNode(nodeId: string, storageGatewayId?: string): Promise<UserCredentialState[]>;
  update(credential: UserCredentialState): Promise<void>;
  delete(id: string): Promise<void>;
  deleteForNode(nodeId: string): Promise<void>;
}
