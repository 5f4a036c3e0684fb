import { Client } from 'pg';
import type { ChangeWatch } from '../ReadCache';

/** The channel the triggers of migration ChangeNotifications notify on. */
const CHANGE_CHANNEL = 'xfer_changes';

/**
 * Postgres: triggers NOTIFY from the writing transaction (at its commit); a dedicated connection
 * LISTENs. While that connection is down nothing is cached, and every reconnect starts a new
 * generation, so a notification lost in between cannot leave a stale entry.
 */
export class PostgresChangeWatch implements ChangeWatch {
  private epoch = 0;
  private client: Client | null = null;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly url: string) {}

  async start(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    this.client = client;
    const lost = () => {
      this.listening = false;
      this.epoch++;
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (!this.closed && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.start().catch(() => undefined);
        }, 1000);
        this.retry.unref();
      }
    };
    client.on('error', lost);
    client.on('end', () => this.client === client && lost());
    client.on('notification', () => this.epoch++);
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      lost();
      throw error;
    }
    if (this.closed) return void (await client.end().catch(() => undefined));
    this.epoch++;
    this.listening = true;
  }

  generation(): string | null {
    return this.listening ? String(this.epoch) : null;
  }

  /**
   * A notification travels on its own: a request that follows another process's commit can reach
   * this process before it. A round trip on the listening connection comes back after every
   * notification sent to it before, so the commit is counted. Callers that arrive while one is
   * under way share the next, which leaves after they came.
   */
  sync(): Promise<void> | null {
    const client = this.client;
    // not listening: nothing is cached
    if (!client || !this.listening) return null;
    if (!this.inFlight) {
      this.inFlight = client
        .query('SELECT 1')
        .then(() => undefined, () => undefined)
        .finally(() => (this.inFlight = null));
      return this.inFlight;
    }
    this.queued ??= this.inFlight.then(async () => {
      this.queued = null;
      await this.sync();
    });
    return this.queued;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
