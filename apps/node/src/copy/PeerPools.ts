import { trustedCas } from '@xfer/storage';
import { Pool } from 'undici';

/**
 * Connections from this node to the other nodes it pulls files from: a pool per node's origin,
 * kept while the node runs (the node's composition root closes them after its server).
 */
export class PeerPools {
  private readonly pools = new Map<string, Pool>();
  private readonly ca: string[] | undefined;

  /** `extraCa`: a CA to trust beside the system's and NODE_EXTRA_CA_CERTS (a test's, the stand-in's). */
  constructor(extraCa?: string) {
    this.ca = trustedCas(extraCa);
  }

  pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: 8, connectTimeout: 5_000, keepAliveTimeout: 30_000, connect: this.ca && { ca: this.ca } });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => undefined)));
  }
}
