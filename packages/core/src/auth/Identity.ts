import { BadRequestError, ConflictError } from '../shared/errors';
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

/** The domain of clients' own identities (`<client id>@clients.auth.globus.org`), as on the hosted service. */
export const CLIENTS_DOMAIN = 'clients.auth.globus.org';

/** Usernames of the clients' domain belong to clients: no person's identity may take one. */
export function isClientUsername(username: string): boolean {
  return username.toLowerCase().endsWith(`@${CLIENTS_DOMAIN}`);
}

/** The longest username stored (the identities' and endpoints' owner_string columns hold 255). */
export const MAX_USERNAME = 255;

export function checkUsername(username: string): string {
  if (username.length > MAX_USERNAME) throw new BadRequestError(`Invalid username '${username.slice(0, 40)}...': at most ${MAX_USERNAME} characters`);
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

/**
 * An identity set: identities a person linked, known by the id of its primary identity. The rules
 * of linking and unlinking are decided here; the changed members are written back with
 * `IdentityRepository.update`.
 */
export class IdentitySet {
  private readonly members: IdentityState[];
  private readonly changed = new Set<IdentityState>();

  /** `members`: every identity of one set (as `IdentityRepository.listSet` reads it). */
  constructor(members: readonly IdentityState[]) {
    if (members.length === 0) throw new BadRequestError('An identity set has at least one identity');
    this.members = sortIdentitySet(members.map((m) => ({ ...m })), members[0].set_id);
  }

  get id(): string {
    return this.members[0].set_id;
  }

  identities(): IdentityState[] {
    return this.members.map((m) => ({ ...m }));
  }

  /** Moves every identity of `other` into this set, linked at `at`. */
  link(other: IdentitySet, at: Date): void {
    if (other.id === this.id) throw new ConflictError(`'${this.members[0].username}' and '${other.members[0].username}' are already linked`);
    for (const m of other.members.splice(0)) {
      this.change(m, { set_id: this.id, linked_at: at });
      this.members.push(m);
    }
    for (const m of other.changed) this.changed.add(m);
  }

  /** Takes one identity out into a set of its own; when it was the primary, the next linked one becomes primary. */
  unlink(identityId: string): void {
    const identity = this.members.find((m) => m.id === identityId);
    if (!identity) throw new BadRequestError(`Identity '${identityId}' is not in this set`);
    if (this.members.length < 2) throw new BadRequestError(`'${identity.username}' is not linked to another identity`);
    this.members.splice(this.members.indexOf(identity), 1);
    if (identity.id === identity.set_id) {
      const [next, ...rest] = this.members;
      this.change(next, { set_id: next.id, linked_at: null });
      for (const m of rest) this.change(m, { set_id: next.id });
    }
    this.change(identity, { set_id: identity.id, linked_at: null });
  }

  /** The identities changed since the set was loaded, to be written back. */
  changes(): IdentityState[] {
    return [...this.changed].map((m) => ({ ...m }));
  }

  private change(identity: IdentityState, patch: Partial<IdentityState>): void {
    Object.assign(identity, patch);
    this.changed.add(identity);
  }
}

export interface IdentityRepository {
  add(identity: IdentityState): Promise<void>;
  findById(id: string): Promise<IdentityState | null>;
  /** Without regard to case: `Alice` and `alice` are one username. */
  findByUsername(username: string): Promise<IdentityState | null>;
  /** Every identity of the set, the primary first, then by link time. */
  listSet(setId: string): Promise<IdentityState[]>;
  /** Writes back identities as they are now (set membership, password hash, profile). */
  update(identities: readonly IdentityState[]): Promise<void>;
  list(): Promise<IdentityState[]>;
}
