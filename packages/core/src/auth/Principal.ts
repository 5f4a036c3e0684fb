import type { IdentityState } from './Identity';

/**
 * The caller of a request: the identity the token was issued to (primary), every identity linked
 * to it, and the groups of all of them. Rights granted to any of these count (spec section 1).
 */
export class Principal {
  readonly identityIds: ReadonlySet<string>;
  readonly groupIds: ReadonlySet<string>;

  constructor(
    readonly primary: IdentityState,
    readonly identities: readonly IdentityState[],
    groupIds: readonly string[],
  ) {
    this.identityIds = new Set([primary.id, ...identities.map((i) => i.id)]);
    this.groupIds = new Set(groupIds);
  }

  /** Identity and group ids: everything a role or subscription membership may name. */
  get principalIds(): string[] {
    return [...this.identityIds, ...this.groupIds];
  }

  hasIdentity(identityId: string | null): boolean {
    // Stryker disable next-line ConditionalExpression: no identity id is null, so the set never has it; the test says what null means
    return identityId !== null && this.identityIds.has(identityId);
  }
}
