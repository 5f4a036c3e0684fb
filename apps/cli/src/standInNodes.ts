import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeServer } from '@xfer/node';
import { freePort, type Logger } from '@xfer/server-kit';
import type { SeedNodes } from './seedFile';

/** A node of the seed, registered and waiting to start. */
interface Registered {
  id: string;
  name: string;
  url: string;
  secretFile: string;
}

/**
 * The stand-in's data nodes (a seed's `nodes`): each a NodeServer in the stand-in's process on a
 * port of its own, with a certificate for localhost signed by a CA made at start (the `selfsigned`
 * library: P-256 keys in milliseconds, no openssl needed), whose file the stand-in prints for its
 * clients to trust. Their files live in a temp folder, gone at close.
 */
export class StandInNodes implements SeedNodes {
  private readonly registered: Registered[] = [];
  private readonly running: NodeServer[] = [];

  private constructor(
    private readonly dir: string,
    /** The CA's certificate (PEM file), what clients trust. */
    readonly caFile: string,
    readonly caPem: string,
    private readonly tls: { cert: string; key: string },
  ) {}

  static async make(): Promise<StandInNodes> {
    const { generate } = await import('selfsigned');
    const dir = mkdtempSync(join(tmpdir(), 'xfer-stand-in-nodes-'));
    const ec = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;
    const ca = await generate([{ name: 'commonName', value: 'xfer stand-in nodes CA' }], { ...ec, extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }] });
    const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
      ...ec,
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
      ],
    });
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content, { mode: 0o600 });
      return join(dir, name);
    };
    return new StandInNodes(dir, file('ca.pem', ca.cert), ca.cert, { cert: file('node.pem', leaf.cert), key: file('node.key', leaf.private) });
  }

  get empty(): boolean {
    return this.registered.length === 0;
  }

  async urlFor(port: number): Promise<string> {
    return `https://localhost:${port === 0 ? await freePort() : port}`;
  }

  added(node: { id: string; name: string; url: string }, secret: string): void {
    const secretFile = join(this.dir, `${node.id}.secret`);
    writeFileSync(secretFile, secret, { mode: 0o600 });
    this.registered.push({ ...node, secretFile });
  }

  /** Starts every registered node against the stand-in at `url`; the lines to print about them. */
  async start(url: string, host: string, logger: Logger): Promise<string[]> {
    const { NodeServer } = await import('@xfer/node');
    const lines: string[] = [];
    for (const node of this.registered) {
      const server = await NodeServer.start({ apiUrl: url, authUrl: url, nodeId: node.id, secretFile: node.secretFile, host, tlsCert: this.tls.cert, tlsKey: this.tls.key, peerCa: this.caPem, logger });
      this.running.push(server);
      lines.push(`data node ${node.name} (${node.id}) at ${server.url}`);
    }
    lines.push(`data nodes' CA: ${this.caFile} (trust it: GLOBUS_SDK_VERIFY_SSL, NODE_EXTRA_CA_CERTS, curl --cacert)`);
    return lines;
  }

  async close(): Promise<void> {
    await Promise.all(this.running.splice(0).map((server) => server.close()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
