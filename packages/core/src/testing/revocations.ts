import type { UnitOfWork } from '../shared/UnitOfWork';

/**
 * Records each revocation of a client's tokens ("access <client> <time>", "refresh <client>
 * <time>") while still revoking them: what removing a client must do, in the order it does it.
 */
export function recordClientRevocations(uow: UnitOfWork): string[] {
  const revoked: string[] = [];
  const { accessTokens, refreshTokens } = uow.repositories;
  const revokeAccess = accessTokens.revokeForClient.bind(accessTokens);
  const revokeRefresh = refreshTokens.revokeForClient.bind(refreshTokens);
  accessTokens.revokeForClient = async (id, at) => {
    revoked.push(`access ${id} ${at.toISOString()}`);
    return revokeAccess(id, at);
  };
  refreshTokens.revokeForClient = async (id, at) => {
    revoked.push(`refresh ${id} ${at.toISOString()}`);
    return revokeRefresh(id, at);
  };
  return revoked;
}
