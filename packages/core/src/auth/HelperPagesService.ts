import { AuthenticationFailedError, TooManySignInAttemptsError } from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { findNamedClient, type ClientState } from './Client';
import { consentForest, type ConsentNode } from './Consent';
import { checkUsername, identityDocument, identityProviderDisplayName, type IdentityState } from './Identity';
import { verifyPassword } from './password';
import { hashSessionSecret, newSessionSecret } from './Session';
import { DEFAULT_SIGN_IN_THROTTLE, signInKeys, type SignInThrottleOptions } from './SignInThrottle';

/** The repositories the helper pages read. */
export type HelperPagesRepositories = RepositoriesOf<'clients' | 'identities' | 'sessions' | 'signInFailures' | 'consents' | 'scopes'>;

export interface SignedIn {
  /** The identity that signed in. */
  identity: IdentityState;
  /** Its whole identity set, the set's primary identity first. */
  set: IdentityState[];
  /** When this browser signed in (OpenID Connect's auth time). */
  authenticatedAt?: Date;
}

export interface IdentityView extends ReturnType<typeof identityDocument> {
  identity_provider_display_name: string;
  primary: boolean;
  signed_in: boolean;
  linked_at: Date | null;
}

export interface ConsentView {
  id: number;
  dependency_path: number[];
  scope_name: string;
  scope_description: string;
  created: Date;
  last_used: Date | null;
  status: string;
}

export interface ClientConsentsView {
  client: { id: string; display_name: string };
  consents: ConsentNode<ConsentView>[];
}

export const SESSION_LIFETIME_SECONDS = 8 * 60 * 60;

export interface HelperPagesOptions {
  sessionLifetimeSeconds: number;
  signInThrottle: SignInThrottleOptions;
}

export const DEFAULT_HELPER_PAGES_OPTIONS: HelperPagesOptions = { sessionLifetimeSeconds: SESSION_LIFETIME_SECONDS, signInThrottle: DEFAULT_SIGN_IN_THROTTLE };

/** The use cases behind the browser helper pages (spec area A). */
export class HelperPagesService {
  constructor(
    private readonly uow: HelperPagesRepositories,
    private readonly clock: Clock,
    private readonly options: HelperPagesOptions = DEFAULT_HELPER_PAGES_OPTIONS,
  ) {}

  /**
   * Checks a username and password and opens a session; the secret goes into the cookie. Failed
   * sign-ins count per account and per `address`; past either limit every attempt is refused
   * until the window has passed. The browser's previous session, if any, ends (no fixation, and
   * signing in as someone else leaves nothing of the first user signed in).
   */
  async signIn(username: string, password: string, context: { address?: string; previousSecret?: string } = {}): Promise<{ secret: string; expiresAt: Date }> {
    const { identities, sessions, signInFailures } = this.uow.repositories;
    const throttle = this.options.signInThrottle;
    const now = this.clock.now();
    const keys = signInKeys(username, context.address);
    const since = new Date(now.getTime() - throttle.windowSeconds * 1000);
    const overLimit =
      // Stryker disable next-line ConditionalExpression: nothing is recorded under no address, so counting it finds 0
      (keys.address !== null && (await signInFailures.countSince(keys.address, since)) >= throttle.attemptsPerAddress) ||
      (await signInFailures.countSince(keys.account, since)) >= throttle.attemptsPerAccount;
    if (overLimit) {
      const minutes = Math.ceil(throttle.windowSeconds / 60);
      throw new TooManySignInAttemptsError(`Too many failed sign-ins. Try again in ${minutes} minutes.`, throttle.windowSeconds);
    }
    let identity: IdentityState | null = null;
    try {
      identity = await identities.findByUsername(checkUsername(username));
    } catch {
      // a malformed username is a wrong one: it fails below like any other
    }
    const ok = await verifyPassword(password, identity?.password_hash ?? null);
    if (!identity || !ok || identity.status === 'closed') {
      await signInFailures.add(keys.address === null ? [keys.account] : [keys.account, keys.address], now);
      throw new AuthenticationFailedError('Wrong username or password.');
    }
    await signInFailures.clear(keys.account);
    if (context.previousSecret) await sessions.delete(hashSessionSecret(context.previousSecret));
    const secret = newSessionSecret();
    const expiresAt = new Date(now.getTime() + this.options.sessionLifetimeSeconds * 1000);
    await sessions.add({ id_hash: hashSessionSecret(secret), identity_id: identity.id, created_at: now, expires_at: expiresAt });
    return { secret, expiresAt };
  }

  /** The signed-in user of a session cookie, or null when there is no live session. */
  async signedIn(secret: string | undefined): Promise<SignedIn | null> {
    if (!secret) return null;
    const holder = await this.uow.repositories.sessions.findHolder(hashSessionSecret(secret));
    if (!holder || holder.session.expires_at.getTime() <= this.clock.now().getTime()) return null;
    return { identity: holder.identity, set: holder.set, authenticatedAt: holder.session.created_at };
  }

  /** Ends the session of the cookie; true when there was one. */
  async logout(secret: string | undefined): Promise<boolean> {
    if (!secret) return false;
    const hash = hashSessionSecret(secret);
    const existed = (await this.uow.repositories.sessions.findByHash(hash)) !== null;
    await this.uow.repositories.sessions.delete(hash);
    return existed;
  }

  /** The client a page was opened for, for its name and branding; null for a missing or unknown id. */
  async client(clientId: string | undefined): Promise<ClientState | null> {
    return findNamedClient(this.uow.repositories.clients, clientId);
  }

  identities(user: SignedIn): IdentityView[] {
    const primaryId = user.identity.set_id;
    return user.set.map((identity) => ({
      ...identityDocument(identity),
      identity_provider_display_name: identityProviderDisplayName(identity),
      primary: identity.id === primaryId,
      signed_in: identity.id === user.identity.id,
      linked_at: identity.linked_at,
    }));
  }

  /** Every client the user consented to, with its consents as the tree their dependency paths form. */
  async consents(user: SignedIn): Promise<ClientConsentsView[]> {
    const { consents, clients, scopes } = this.uow.repositories;
    const all = (await consents.listForIdentities(user.set.map((i) => i.id))).filter((c) => c.status === 'approved');
    const clientById = new Map((await clients.findByIds([...new Set(all.map((c) => c.client_id))])).map((c) => [c.id, c]));
    const scopeById = new Map((await scopes.findByIds([...new Set(all.map((c) => c.scope_id))])).map((s) => [s.id, s]));
    const byClient = new Map<string, ConsentView[]>();
    for (const c of all) {
      const scope = scopeById.get(c.scope_id);
      const list = byClient.get(c.client_id) ?? [];
      list.push({
        id: c.id,
        dependency_path: c.dependency_path,
        scope_name: scope?.name ?? c.scope_id,
        scope_description: scope?.description ?? 'An activity no longer described by the service',
        created: c.created,
        last_used: c.last_used,
        status: c.status,
      });
      byClient.set(c.client_id, list);
    }
    return [...byClient.entries()]
      .map(([clientId, list]) => ({
        client: { id: clientId, display_name: clientById.get(clientId)?.display_name ?? 'Unknown application' },
        consents: consentForest(list),
      }))
      .sort((a, b) => a.client.display_name.localeCompare(b.client.display_name));
  }
}
