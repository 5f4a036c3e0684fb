import { randomBytes } from 'node:crypto';

/** Who signed in, as their id_token says. */
export interface ConsolePerson {
  id: string;
  username: string;
  name: string | null;
}

/** Every token a sign-in got: the ones pages use, and all of them, to revoke when the session ends. */
export interface ConsoleTokens {
  transfer: string;
  auth: string;
  access: string[];
  refresh: string[];
}

/** A signed-in person's session with the console (its tokens are never sent to the browser). */
export interface ConsoleSession {
  readonly id: string;
  readonly person: ConsolePerson;
  readonly tokens: ConsoleTokens;
  /** A one-time message for the next page ("Endpoint created"). */
  notice: string | null;
  /** The endpoint just created, for the page after it: a personal endpoint's setup key is shown there once. */
  created: { id: string; displayName: string; setupKey: string | null } | null;
  expiresAt: number;
}

export interface SessionOptions {
  /** How long a session lives without use. */
  idleSeconds: number;
  /** At most this many sessions of one person; their least recently used goes first. */
  perPerson: number;
}

export const DEFAULT_SESSION_OPTIONS: SessionOptions = { idleSeconds: 8 * 60 * 60, perPerson: 20 };

/** How often, at most, ended sessions are looked for: on a request, not on a timer of its own. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The console's signed-in sessions, in this process's memory. Only a completed sign-in makes one
 * (a sign-in under way lives in the browser's sealed cookie), so strangers cannot crowd anyone
 * out; each person keeps at most `perPerson`. Whenever a session ends (sign-out, idle expiry, a
 * person's older session giving way, the process stopping) `onEnd` is told, to revoke its tokens.
 * A restart signs everyone out of the console, not out of the authorization service.
 */
export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();
  /** Session ids of each person, least recently used first. */
  private readonly byPerson = new Map<string, Set<string>>();
  private sweptAt: number;

  constructor(
    private readonly onEnd: (session: ConsoleSession) => Promise<void>,
    private readonly options: SessionOptions = DEFAULT_SESSION_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {
    this.sweptAt = now();
  }

  /** A new session for a person who just signed in (a new id: never one the browser held before). */
  create(person: ConsolePerson, tokens: ConsoleTokens): ConsoleSession {
    this.sweep();
    const session: ConsoleSession = { id: randomBytes(32).toString('base64url'), person, tokens, notice: null, created: null, expiresAt: 0 };
    this.touch(session);
    const own = this.byPerson.get(person.id)!;
    while (own.size > this.options.perPerson) void this.end(this.sessions.get(own.values().next().value!)!);
    return session;
  }

  /** The live session of this id, used now (it moves to the back of its person's order). */
  find(id: string | undefined): ConsoleSession | null {
    this.sweep();
    const session = id ? this.sessions.get(id) : undefined;
    if (!session) return null;
    if (session.expiresAt <= this.now()) {
      void this.end(session);
      return null;
    }
    this.touch(session);
    return session;
  }

  /** Ends a session: it is forgotten at once; the returned promise settles when `onEnd` has run. */
  end(session: ConsoleSession): Promise<void> {
    if (this.sessions.get(session.id) !== session) return Promise.resolve();
    this.sessions.delete(session.id);
    const own = this.byPerson.get(session.person.id);
    own?.delete(session.id);
    if (own?.size === 0) this.byPerson.delete(session.person.id);
    return this.onEnd(session).catch(() => undefined);
  }

  /** Ends every session (the process stops). */
  async endAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => this.end(session)));
  }

  get size(): number {
    return this.sessions.size;
  }

  private touch(session: ConsoleSession): void {
    session.expiresAt = this.now() + this.options.idleSeconds * 1000;
    this.sessions.set(session.id, session);
    const own = this.byPerson.get(session.person.id) ?? new Set<string>();
    own.delete(session.id);
    own.add(session.id);
    this.byPerson.set(session.person.id, own);
  }

  /** Ends the sessions whose idle time ran out, at most once a minute. */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < SWEEP_INTERVAL_MS) return;
    this.sweptAt = now;
    for (const session of [...this.sessions.values()]) if (session.expiresAt <= now) void this.end(session);
  }
}
