import type { IdentityState } from './Identity';

/**
 * The caller of a request: the identity the token was issued to (primary), every identity linked
 * to it, and the groups of all of them. Rights granted to any of these count (spec section 1).
 */
export class Principal {
  readonly identityIds: ReadonlySet<string>;
  readonly groupIds: ReadonlySet<string>;
  /** Identity and group ids: everything a role or subscription membership may name. */
  readonly principalIds: readonly string[];
  /** The principal ids in one string: what a memo of this caller's reads is keyed by. */
  readonly principalKey: string;

  constructor(
    readonly primary: IdentityState,
    readonly identities: readonly IdentityState[],
    groupIds: readonly string[],
  ) {
    this.identityIds = new Set([primary.id, ...identities.map((i) => i.id)]);
    this.groupIds = new Set(groupIds);
    // computed once: a principal is made once per token holder and read on every request
    this.principalIds = Object.freeze([...this.identityIds, ...this.groupIds]);
    this.principalKey = this.principalIds.join(' ');
  }

  hasIdentity(identityId: string | null): boolean {
    // Stryker disable next-line ConditionalExpression: no identity id is null, so the set never has it; the test says what null means
    return identityId !== null && this.identityIds.has(identityId);
  }
}
