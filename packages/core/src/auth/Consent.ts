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

export type NewConsent = Omit<ConsentState, 'id' | 'dependency_path'> & { parent_id: number | null };

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

export interface ConsentRepository {
  /** Stores a new consent under `parent_id` (or as a root) and returns it with its id and path. */
  add(consent: NewConsent): Promise<ConsentState>;
  listForIdentities(identityIds: readonly string[]): Promise<ConsentState[]>;
  findById(id: number): Promise<ConsentState | null>;
  /** Stamps `last_used` on these consents and the consents that depend on them (a token was issued under them). */
  markUsed(ids: readonly number[], at: Date): Promise<void>;
  /** Marks the consent and every consent that depends on it revoked. */
  revokeTree(id: number, at: Date): Promise<void>;
}
