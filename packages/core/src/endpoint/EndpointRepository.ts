import { ConflictError } from '../shared/errors';
import type { EndpointRole, RoleAssignmentState } from '../role/Role';
import type { Endpoint, EndpointKind, Tombstone } from './Endpoint';

/** An endpoint with the role assignments some principals hold on it. */
export interface EndpointWithRoles {
  endpoint: Endpoint;
  assignments: RoleAssignmentState[];
}

/** What a search asks the repository for (EndpointSearch builds it from a request). */
export interface EndpointCriteria {
  /** Each term must be a prefix of a word of a searched field (after stemming where the engine stems). */
  terms: string[];
  /** Public, or one of `roles` held by these principals: what the caller could GET. */
  visibleTo: { principalIds: readonly string[]; roles: readonly EndpointRole[] };
  ownedBy?: readonly string[];
  notOwnedBy?: readonly string[];
  kinds?: readonly EndpointKind[];
  /** One of `roles` held by these principals (an owner holds administrator). */
  holding?: { principalIds: readonly string[]; roles: readonly EndpointRole[] };
  /** A live access rule grants one of these principals, or all authenticated users. */
  grantedTo?: { principalIds: readonly string[]; now: Date };
  hostId?: string;
  hostKind?: EndpointKind;
  /** Whether it is a GCS collection (a node's mapped or guest collection). */
  collection?: boolean;
  /** A server endpoint without servers is non-functional; every other endpoint is functional. */
  functional?: boolean;
  offset: number;
  /** How many to read: one more than the page, to know whether another page follows. */
  limit: number;
}

export interface SearchHit extends EndpointWithRoles {
  /** Match quality, higher is better; 0 without full text. */
  rank: number;
}

/** `forUpdate`: inside a transaction, hold the row until it ends, so concurrent writers queue up. */
export interface ReadOptions {
  forUpdate?: boolean;
}

export interface EndpointRepository {
  findById(id: string): Promise<Endpoint | null>;
  findByCanonicalName(canonicalName: string): Promise<Endpoint | null>;
  /** The tombstone of a deleted endpoint, by id or canonical name. */
  findTombstone(key: { id: string } | { canonical_name: string }): Promise<Tombstone | null>;
  /**
   * Inserts a new endpoint (version 0). Fails with ConflictError when the owner already has a live
   * endpoint with the same display_name, or the canonical_name is taken.
   */
  insert(endpoint: Endpoint): Promise<void>;
  /**
   * Stores a changed endpoint and bumps its version. Fails with ConcurrentModificationError when the
   * stored version is no longer the one the endpoint was read at, and with ConflictError as insert.
   */
  update(endpoint: Endpoint): Promise<void>;
  /** Removes the endpoint and leaves its tombstone. */
  delete(endpoint: Endpoint, tombstone: Tombstone): Promise<void>;
  findByIds(ids: readonly string[]): Promise<Endpoint[]>;
  /** One read: the endpoint by id or canonical name, with the assignments these principals hold on it. */
  findWithRolesOf(key: { id: string } | { canonical_name: string }, principalIds: readonly string[], options?: ReadOptions): Promise<EndpointWithRoles | null>;
  /**
   * Shares of a host that these identities own or on which these principals hold one of `roles`,
   * each with every assignment the principals hold on it.
   */
  listSharesHeldBy(
    hostId: string,
    holder: { identityIds: readonly string[]; principalIds: readonly string[]; roles: readonly string[] },
  ): Promise<EndpointWithRoles[]>;
  /**
   * One page of a host's shares in (created_at, id) order, after `after` (from the start when
   * null), at most `limit`, each with the assignments these principals hold on it.
   */
  listSharesOfHost(hostId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }): Promise<EndpointWithRoles[]>;
  /**
   * One page of the GCS collections of a node (mapped and guest) in (created_at, id) order, after
   * `after`, at most `limit`, each with the assignments these principals hold on it.
   */
  listCollectionsOfNode(nodeId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }): Promise<EndpointWithRoles[]>;
  /**
   * Endpoint search: the endpoints meeting every criterion, best match first (then by id), from
   * `offset`, at most `limit`, each with the assignments the visibility principals hold on it.
   * Full text is the database's own engine, kept in step with every write.
   */
  search(criteria: EndpointCriteria): Promise<SearchHit[]>;
}

/** Where a page of a host's shares resumes: after this share, in (created_at, id) order. */
export interface ShareCursor {
  createdAt: Date;
  id: string;
}

/** The one wording of uniqueness conflicts, used by every adapter. */
export const endpointConflicts = {
  displayName: (displayName: string | null) =>
    new ConflictError(`An endpoint with the same name already exists: you already own an endpoint with display_name '${displayName}'`),
  canonicalName: (canonicalName: string) =>
    new ConflictError(`An endpoint with the same name already exists: canonical_name '${canonicalName}' is taken`),
};
