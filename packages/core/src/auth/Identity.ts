import { BadRequestError } from '../shared/errors';
import { checkEmail, checkText } from '../shared/text';

export type IdentityStatus = 'unused' | 'used' | 'private' | 'closed';
export const IDENTITY_STATUSES: readonly IdentityStatus[] = ['unused', 'used', 'private', 'closed'];

/** The identity provider of identities created by this service itself. */
export const LOCAL_IDENTITY_PROVIDER = {
  id: '41143743-f3c8-4d60-bbdb-eeecaba85bd9',
  displayName: 'xfer local accounts',
} as const;

export interface IdentityState {
  id: string;
  username: string;
  name: string | null;
  email: string | null;
  organization: string | null;
  identity_provider: string;
  identity_type: string;
  status: IdentityStatus;
  /** Id of the primary identity of the set this identity belongs to (its own id when not linked). */
  set_id: string;
  /** When this identity was linked into its set; null for a set's primary identity. */
  linked_at: Date | null;
  created_at: Date;
  password_hash: string | null;
}

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}(@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,190}[A-Za-z0-9])?)?$/;

export function checkUsername(username: string): string {
  if (!USERNAME.test(username)) {
    throw new BadRequestError(
      `Invalid username '${username}': letters, digits and . _ + - , optionally followed by @domain`,
    );
  }
  return username;
}

/** The part of a username before its `@`: the user part of canonical names ("go" for go@globusid.org). */
export function shortUsername(username: string): string {
  const at = username.indexOf('@');
  return at < 0 ? username : username.slice(0, at);
}

export interface NewIdentity {
  id: string;
  username: string;
  name?: string | null;
  email?: string | null;
  organization?: string | null;
  now: Date;
}

export function newIdentity(input: NewIdentity): IdentityState {
  return {
    id: input.id,
    username: checkUsername(input.username),
    name: input.name == null ? null : checkText('name', input.name, { max: 256, singleLine: true }),
    email: input.email == null ? null : checkEmail('email', input.email),
    organization:
      input.organization == null ? null : checkText('organization', input.organization, { max: 1024, singleLine: true }),
    identity_provider: LOCAL_IDENTITY_PROVIDER.id,
    identity_type: 'login',
    status: 'used',
    set_id: input.id,
    linked_at: null,
    created_at: input.now,
    password_hash: null,
  };
}

/** The name users know an identity's provider by. */
export function identityProviderDisplayName(identity: IdentityState): string {
  return identity.identity_provider === LOCAL_IDENTITY_PROVIDER.id ? LOCAL_IDENTITY_PROVIDER.displayName : identity.identity_provider;
}

/** The wire shape of an identity, as the hosted service's clients read it. */
export function identityDocument(identity: IdentityState) {
  return {
    id: identity.id,
    username: identity.username,
    name: identity.name,
    email: identity.email,
    organization: identity.organization,
    identity_provider: identity.identity_provider,
    identity_type: identity.identity_type,
    status: identity.status,
  };
}

/** An identity set in its order: the set's primary identity first, then by when each was linked. */
export function sortIdentitySet(set: IdentityState[], setId: string): IdentityState[] {
  return set.sort((a, b) => (a.id === setId ? -1 : b.id === setId ? 1 : (a.linked_at?.getTime() ?? 0) - (b.linked_at?.getTime() ?? 0)));
}

export interface IdentityRepository {
  add(identity: IdentityState): Promise<void>;
  findById(id: string): Promise<IdentityState | null>;
  findByUsername(username: string): Promise<IdentityState | null>;
  /** Every identity of the set, the primary first, then by link time. */
  listSet(setId: string): Promise<IdentityState[]>;
  /** Moves every identity of set `fromSetId` into set `toSetId`, stamped `linkedAt`. */
  mergeSets(fromSetId: string, toSetId: string, linkedAt: Date): Promise<void>;
  setPasswordHash(id: string, hash: string): Promise<void>;
  /** Puts one identity into set `setId` (its own id: out of every set). */
  moveToSet(id: string, setId: string, linkedAt: Date | null): Promise<void>;
  list(): Promise<IdentityState[]>;
}
