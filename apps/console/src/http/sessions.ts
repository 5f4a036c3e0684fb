import { randomBytes } from 'node:crypto';

/** Who signed in, as their id_token says. */
export interface ConsolePerson {
  id: string;
  username: string;
  name: string | null;
}

/** A browser's session with the console: a sign-in under way, then the person and their tokens (never sent to the browser). */
export interface ConsoleSession {
  readonly id: string;
  /** The authorization request under way: checked when the browser comes back. */
  pending: { state: string; nonce: string; verifier: string; next: string } | null;
  person: ConsolePerson | null;
  tokens: { transfer: string; auth: string; all: string[] } | null;
  /** A one-time message for the next page ("Endpoint created"). */
  notice: string | null;
  expiresAt: number;
}

export interface SessionOptions {
  /** How long a session lives without use. */
  idleSeconds: number;
  /** At most this many sessions; the least recently used go first. */
  limit: number;
}

export const DEFAULT_SESSION_OPTIONS: SessionOptions = { idleSeconds: 8 * 60 * 60, limit: 10_000 };

/**
 * The console's sessions, in this process's memory: a restart signs everyone out of the console
 * (not out of the authorization service, so signing in again is one click). Several console
 * instances behind one address need sticky sessions.
 */
export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(
    private readonly options: SessionOptions = DEFAULT_SESSION_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {}

  create(): ConsoleSession {
    const session: ConsoleSession = { id: randomBytes(32).toString('base64url'), pending: null, person: null, tokens: null, notice: null, expiresAt: 0 };
    this.touch(session);
    while (this.sessions.size > this.options.limit) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  /** The live session of this id, used now (it moves to the back of the eviction order). */
  find(id: string | undefined): ConsoleSession | null {
    const session = id ? this.sessions.get(id) : undefined;
    if (!session) return null;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(session.id);
      return null;
    }
    this.touch(session);
    return session;
  }

  end(session: ConsoleSession): void {
    this.sessions.delete(session.id);
  }

  get size(): number {
    return this.sessions.size;
  }

  private touch(session: ConsoleSession): void {
    session.expiresAt = this.now() + this.options.idleSeconds * 1000;
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }
}
