import { hashToken } from '../AccessToken';
import { isRefreshTokenLive, type RefreshTokenState } from '../Grant';
import type { AuthorizationServerRepositories } from './rules';

/** The refresh token grant (RFC 6749 6): a live refresh token by its value. */
export class RefreshTokenGrant {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
  ) {}

  /** A live refresh token by its value. */
  async findRefreshToken(secret: string): Promise<RefreshTokenState | null> {
    const found = await this.uow.repositories.refreshTokens.findByHash(hashToken(secret));
    return found && isRefreshTokenLive(found) ? found : null;
  }
}
