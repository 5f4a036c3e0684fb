import { Client, type ClientConfig } from 'pg';

/** A named statement as node-postgres sends it. */
export interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * Postgres: the reads outside transactions (Sql.rows), pipelined on connections of their own
 * (node-postgres's pipeline mode): a read is written at once, behind those still under way, and the
 * backend finds it waiting when it finishes the one before. Taken from the pool, each read waited
 * for a connection to come back, and the backend slept between two reads and was woken for the
 * next. At 1,000,000 endpoints, 32 searches at a time on two cores: Node's CPU per search
 * 0.17 -> 0.10 ms, Postgres's 0.45 -> 0.34 ms (four pooled connections against two pipelined).
 */
export class PipelinedReads {
  private readonly lanes: Lane[];

  constructor(config: ClientConfig, connections: number) {
    this.lanes = Array.from({ length: connections }, () => new Lane(config));
  }

  /** Runs a read on the connection with the fewest reads under way. */
  query(query: NamedQuery): Promise<{ rows: unknown[] }> {
    let lane = this.lanes[0];
    for (const other of this.lanes) if (other.inFlight < lane.inFlight) lane = other;
    return lane.query(query);
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/** One pipelined connection, opened on its first read and again on the first read after it broke. */
class Lane {
  inFlight = 0;
  private client: Promise<Client> | null = null;
  private closed = false;

  constructor(private readonly config: ClientConfig) {}

  async query(query: NamedQuery): Promise<{ rows: unknown[] }> {
    if (this.closed) throw new Error('The database connection is closed');
    this.inFlight++;
    try {
      const client = await (this.client ??= this.open());
      return await client.query(query);
    } finally {
      this.inFlight--;
    }
  }

  private open(): Promise<Client> {
    const client = new Client({ ...this.config, pipeline: true });
    // a broken connection fails the reads written to it; the next read opens another
    const opened: Promise<Client> = client.connect().then(
      () => client,
      (error: unknown) => {
        if (this.client === opened) this.client = null;
        throw error;
      },
    );
    const lost = () => {
      if (this.client === opened) this.client = null;
    };
    client.on('error', lost);
    client.on('end', lost);
    return opened;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.then((c) => c.end()).catch(() => undefined);
  }
}

/**
 * Connections of a process's pipelined reads, beside its pool. One: each more backend costs
 * Postgres CPU on a machine it shares (at 1,000,000 endpoints on two cores, 32 searches at a time,
 * alternated runs: Postgres's CPU per search a fifth lower with one than with two, p99 55-68 ms
 * against 64-96). Reads on one connection wait behind each other, so a read that may take long
 * goes to the pool instead (Sql.rows, `slow`).
 */
export const PIPELINED_READ_CONNECTIONS = 1;
