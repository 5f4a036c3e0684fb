import { connect as connectLocal, isIP, type OnReadOpts, type Socket } from 'node:net';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { trustedCas } from '@xfer/storage';
import { HTTPParser } from 'http-parser-js';

/** A connection to another node that does not come up within this long is a failure. */
const CONNECT_MS = 5_000;
/** Each connection reads into one buffer of this size (a TLS record is at most 16 KiB). */
const READ_BUFFER = 64 * 1024;
/** A helper's Unix socket is read a MiB at a time (no records: the fewer reads, the less a relay costs). */
const LOCAL_READ_BUFFER = 1024 * 1024;
const LOCAL_BUFFERS_KEPT = 8;

/** What a call's answer is told to, as it arrives (each piece only for the call: copy what is kept). */
export interface PeerAnswer {
  /** The status, once the answer's head is in (its body follows). */
  status(code: number): void;
  /** A piece of the body; false pauses the connection until `PeerCall.resume`. */
  body(piece: Buffer): boolean;
  end(): void;
  /** The connection failed, was cut, timed out or was stopped; called at most once, never after `end`. */
  failed(error: Error): void;
}

export interface PeerCall {
  resume(): void;
  /** Cuts the call (its answer is told `failed`, unless it ended). */
  stop(reason: Error): void;
}

/**
 * This node's calls to the other nodes it pulls files from: a TLS connection a call, with the CAs
 * the node trusts, read into one buffer of its own, its answer parsed by http-parser-js (chunked or
 * not). Node's own clients (undici, https) give each 16 KiB TLS record a buffer of its own and pass
 * it through a stream; receiving a GiB cost them 1.2-1.5 s of CPU where this costs 0.5, as much as
 * curl (measured). A call is a connection (`Connection: close`): one handshake a pull of up to
 * 1,000 files or 256 MiB. The node's composition root closes the connections after its server.
 */
export class Peers {
  private readonly ca: string[] | undefined;
  private readonly open = new Set<TLSSocket | Socket>();
  /** The read buffers of calls to helpers, kept for the next (each a MiB outside the heap: made anew, many calls cost full collections). */
  private readonly localBuffers: Buffer[] = [];

  /** `extraCa`: a CA to trust beside the system's and NODE_EXTRA_CA_CERTS (a test's, the stand-in's). */
  constructor(extraCa?: string) {
    this.ca = trustedCas(extraCa);
  }

  /**
   * POSTs `body` (JSON) to `url` with `bearer` as its credential; the answer goes to `answer` as
   * it arrives. Fails when the node cannot be reached within CONNECT_MS, or when it sends nothing
   * for `idleMs` while not paused. `socketPath`: an account's helper of this node, on its Unix
   * socket (no TLS; `url` names the request's path only).
   */
  post(url: URL, bearer: string, body: string, idleMs: number, answer: PeerAnswer, socketPath?: string): PeerCall {
    const parser = new HTTPParser('RESPONSE');
    let connected = false;
    let done = false;
    let paused = false;
    const settle = (error: Error | null) => {
      if (done) return;
      done = true;
      socket.destroy();
      if (error) answer.failed(error);
      else answer.end();
    };
    parser.onHeadersComplete = (info) => {
      answer.status(info.statusCode);
    };
    parser.onBody = (chunk, offset, length) => {
      if (done || answer.body(chunk.subarray(offset, offset + length))) return;
      // the read callback answers false: the socket pauses (waiting on this node's disk is no silence of the peer's)
      paused = true;
      socket.setTimeout(0);
    };
    parser.onMessageComplete = () => settle(null);
    const port = Number(url.port || 443);
    const readBuffer = socketPath === undefined ? Buffer.allocUnsafe(READ_BUFFER) : (this.localBuffers.pop() ?? Buffer.allocUnsafeSlow(LOCAL_READ_BUFFER));
    const onread: OnReadOpts = {
      buffer: readBuffer,
      callback: (length: number, buffer: Uint8Array) => {
        const parsed = parser.execute(Buffer.from(buffer.buffer, buffer.byteOffset, length));
        if (parsed instanceof Error) settle(new Error(`its answer is no HTTP (${parsed.message})`));
        return !paused;
      },
    };
    // tls.connect takes net's `onread` (Node's documentation says so; @types/node leaves it out)
    const options: ConnectionOptions & { onread: OnReadOpts } = { host: url.hostname, port, ...(isIP(url.hostname) === 0 && { servername: url.hostname }), ca: this.ca, timeout: CONNECT_MS, onread };
    const socket = socketPath === undefined ? connect(options) : connectLocal({ path: socketPath, timeout: CONNECT_MS, onread });
    this.open.add(socket);
    socket.once(socketPath === undefined ? 'secureConnect' : 'connect', () => {
      connected = true;
      socket.setTimeout(idleMs);
      const path = `${url.pathname}${url.search}`;
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    });
    socket.on('timeout', () => settle(new Error(connected ? `it sent nothing for ${idleMs / 1000} s` : `no connection within ${CONNECT_MS / 1000} s`)));
    socket.on('error', (error) => settle(error));
    socket.on('end', () => {
      // a body delimited by the connection's end is whole now (the parser completes it); any other was cut
      parser.finish();
      settle(new Error('the connection ended mid-answer'));
    });
    socket.on('close', () => {
      this.open.delete(socket);
      if (socketPath !== undefined && this.localBuffers.length < LOCAL_BUFFERS_KEPT) this.localBuffers.push(readBuffer);
      settle(new Error('the connection closed mid-answer'));
    });
    return {
      resume: () => {
        if (!paused || done) return;
        paused = false;
        socket.setTimeout(idleMs);
        socket.resume();
      },
      stop: (reason) => settle(reason),
    };
  }

  /** Cuts the connections still open; resolves once each has closed. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.open].map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => resolve());
            socket.destroy();
          }),
      ),
    );
  }
}
