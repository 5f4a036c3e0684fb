/** A user's consent that a client may act with a scope; dependent consents name their parents. */
export type ConsentStatus = 'approved' | 'revoked';

export interface ConsentState {
  id: number;
  client_id: string;
  scope_id: string;
  /** The identity that consented. */
  identity_id: string;
  /** Ids from the root consent down to this one (the last is this consent's own id). */
  dependency_path: number[];
  created: Date;
  updated: Date;
  last_used: Date | null;
  status: ConsentStatus;
}

/** A consent to store: the repository numbers it and appends its id to its parent's path. */
export type NewConsent = Omit<ConsentState, 'id' | 'dependency_path'> & { parent_path: readonly number[] };

export interface ConsentNode<T extends { id: number; dependency_path: number[] }> {
  consent: T;
  children: ConsentNode<T>[];
}

/** Builds the forest that dependency paths describe; a consent whose parent is missing becomes a root. */
export function consentForest<T extends { id: number; dependency_path: number[] }>(consents: readonly T[]): ConsentNode<T>[] {
  const nodes = new Map(consents.map((c) => [c.id, { consent: c, children: [] as ConsentNode<T>[] }]));
  const roots: ConsentNode<T>[] = [];
  for (const node of nodes.values()) {
    const path = node.consent.dependency_path;
    const parent = path.length > 1 ? nodes.get(path[path.length - 2]) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const byId = (a: ConsentNode<T>, b: ConsentNode<T>) => a.consent.id - b.consent.id;
  const sort = (list: ConsentNode<T>[]) => {
    list.sort(byId);
    list.forEach((n) => sort(n.children));
  };
  sort(roots);
  return roots;
}

/**
 * The consents of one identity set, where the rules about them are decided: which root consents
 * stand for a client, what revoking one takes with it, what a token issued under them stamps.
 * Changes are collected and written back with `ConsentRepository.update`.
 */
export class ConsentSet {
  private readonly consents: ConsentState[];
  private readonly changed = new Set<ConsentState>();

  constructor(consents: readonly ConsentState[]) {
    this.consents = consents.map((c) => ({ ...c }));
  }

  /** The approved root consents for a client, by scope id: a root stands for a scope the user was asked for. */
  approvedRoots(clientId: string): Map<string, number> {
    const roots = this.consents.filter((c) => c.client_id === clientId && c.status === 'approved' && c.dependency_path.length === 1);
    return new Map(roots.map((c) => [c.scope_id, c.id]));
  }

  /** The approved consents of a client at any depth, by scope id: what a dependent token rests on. */
  approvedAnyDepth(clientId: string): Map<string, number> {
    const approved = this.consents.filter((c) => c.client_id === clientId && c.status === 'approved');
    return new Map(approved.map((c) => [c.scope_id, c.id]));
  }

  /** The approved consents that depend directly on consent `id`. */
  approvedDependentsOf(id: number): ConsentState[] {
    return this.consents.filter((c) => c.status === 'approved' && c.dependency_path.length >= 2 && c.dependency_path[c.dependency_path.length - 2] === id).map((c) => ({ ...c }));
  }

  /** Revokes a consent and every consent that depends on it. */
  revoke(id: number, at: Date): void {
    for (const c of this.below([id])) this.change(c, { status: 'revoked', updated: at });
  }

  /** Rescind: revokes the client's approved root consents with what depends on them; returns how many roots. */
  rescind(clientId: string, at: Date): number {
    const roots = [...this.approvedRoots(clientId).values()];
    for (const id of roots) this.revoke(id, at);
    return roots.length;
  }

  /** A token was issued under these consents: they and the consents that depend on them were used. */
  markUsed(ids: readonly number[], at: Date): void {
    for (const c of this.below(ids)) this.change(c, { last_used: at });
  }

  /** The consents changed since this set was loaded, to be written back. */
  changes(): ConsentState[] {
    return [...this.changed].map((c) => ({ ...c }));
  }

  private below(ids: readonly number[]): ConsentState[] {
    return this.consents.filter((c) => c.dependency_path.some((id) => ids.includes(id)));
  }

  private change(consent: ConsentState, patch: Partial<ConsentState>): void {
    Object.assign(consent, patch);
    this.changed.add(consent);
  }
}

export interface ConsentRepository {
  /** Stores a new consent below `parent_path` (empty: a root) and returns it with its id and path. */
  add(consent: NewConsent): Promise<ConsentState>;
  listForIdentities(identityIds: readonly string[]): Promise<ConsentState[]>;
  findById(id: number): Promise<ConsentState | null>;
  /** Writes back the status, `updated` and `last_used` of consents a ConsentSet changed. */
  update(consents: readonly ConsentState[]): Promise<void>;
}
