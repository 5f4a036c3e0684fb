import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiConfig, apiCoreSettings, createApp as createApiApp } from '@xfer/api';
import { isUuid, randomIdGenerator, type IdGenerator } from '@xfer/core';
import type { createConsoleApp } from '@xfer/console';
import { registerConsoleClient } from '@xfer/console/registration';
import { createApp as createPagesApp, helperPagesConfig, pagesCoreSettings } from '@xfer/helper-pages';
import { closeServer, Runtime, STORAGE_FAULTS, type StandInSnapshot, type StorageFault, type TaskWorkerPool } from '@xfer/runtime';
import { createLogger, listen } from '@xfer/server-kit';
import express, { type NextFunction, type Request, type Response } from 'express';
import { exportSeed, writeSeedFile } from './exportSeed';
import { SeedFile } from './seedFile';
import { StandInNodes } from './standInNodes';

/** How the stand-in's tasks move. */
type TaskProgress = 'background' | 'immediate' | 'manual';

/** One request as the journal keeps it. */
export interface JournalEntry {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  identity_id: string | null;
  time: string;
}

/** An injected fault: the next `count` requests of a method and path prefix answer `status`, or wait `delay_ms` first. */
interface Fault {
  id: string;
  method: string;
  path: string;
  status: number | null;
  retry_after: number | null;
  delay_ms: number | null;
  count: number;
}

/** At most this many requests in the journal, and about this many bytes of them: the oldest go first. */
const JOURNAL_LIMIT = { entries: 10_000, bytes: 4 * 1024 * 1024 };
/** A journal entry keeps a query of at most this many bytes (as JSON); a longer one is cut, and says so. */
const JOURNAL_QUERY_BYTES = 2048;
/** At most this many faults pending at once. */
const FAULT_LIMIT = 100;

/** What the hosted services answer a fault with: their error document, code by status. */
function faultCode(status: number): string {
  if (status === 503) return 'ServiceUnavailable';
  if (status === 429) return 'ClientError.TooManyRequests';
  if (status >= 500) return 'InternalError';
  return `ClientError.${status}`;
}

/**
 * The local stand-in for tests (`xfer serve --ephemeral`): both apps on one port over a throwaway
 * in-memory SQLite database, seeded from a file, with control routes under /_xfer/ to reset it
 * to the seed, read the request journal and inject faults.
 */
export class StandIn {
  /** The journal's entries, each with its size as JSON, and the sum of those sizes. */
  private journal: { entry: JournalEntry; bytes: number }[] = [];
  private journalBytes = 0;
  private faults: Fault[] = [];
  /** The CA file of the seed's data nodes, for clients to trust; null without nodes. */
  nodesCa: string | null = null;
  /** How tasks move (POST /_xfer/tasks/progress): as fast as storage allows, before the submit answers, or when told. */
  private progress: TaskProgress = 'background';

  private constructor(
    private readonly runtime: Runtime,
    private readonly seeded: StandInSnapshot,
    readonly url: string,
    private readonly workers: TaskWorkerPool,
  ) {}

  /** The current state in the seed format (`--export-on-exit`). */
  async exportTo(file: string): Promise<void> {
    writeSeedFile(file, await exportSeed(this.runtime.services, this.runtime.uow.repositories, this.runtime.storages));
  }

  /**
   * Its signing key is made when first needed (a JWK Set, discovery or the first id_token): RSA
   * takes 0.1-0.4 s of a core, which a start shared with its seed, while most test suites sign nothing.
   */
  static async start(options: { port: number; host: string; seedFile?: string; env: NodeJS.ProcessEnv; log: (line: string) => void }): Promise<StandIn> {
    const seed = options.seedFile ? SeedFile.read(options.seedFile) : null;
    const config = apiConfig(options.env);
    const pagesConfig = helperPagesConfig(options.env);
    const app = express();
    // listening first: the address is the issuer the services are built with
    const server: Server = await listen(app, options.port, options.host, '--port');
    const url = `http://${options.host}:${(server.address() as AddressInfo).port}`;
    // the ids a seed gives, taken in turn by what it creates; random ones otherwise
    const wanted: string[] = [];
    const ids: IdGenerator = { uuid: () => wanted.shift() ?? randomIdGenerator.uuid() };
    const signingKeySecret = pagesConfig.signingKeySecret ?? 'stand-in keys live and die with the process';
    let standIn: StandIn | null = null;
    const core = { ...apiCoreSettings(config), ...pagesCoreSettings({ ...pagesConfig, issuer: url, signingKeySecret }), ids };
    // a seed's data nodes run in this process, with a CA of their own that the API trusts
    const nodes = seed?.declaresNodes ? await StandInNodes.make() : null;
    await Runtime.start({ kind: 'standIn', core, nodeCa: nodes?.caPem }, async (runtime) => {
      runtime.onClose('the stand-in server', () => closeServer(server));
      if (nodes) runtime.onClose("the seed's data nodes", () => nodes.close());
      // the hosted service's scopes and the CLI's client first: a seed names them
      await runtime.services.admin.clients.installStandardCatalogue();
      // the console signs in at this address: registered before the seed (which may not take its
      // client's id) and the snapshot (so a reset keeps it)
      const credentials = await registerConsoleClient(runtime.services.admin, url);
      // alone on the services while it loads: each id it gives goes to the object it names
      if (seed) options.log(`seeded ${await seed.apply(runtime.services, (id) => wanted.push(id), runtime.storages, nodes)} objects from ${options.seedFile}`);
      const workers = await runtime.startTaskWorkers({ concurrency: config.taskWorkers, pollMs: 50, retryMs: 1000, log: options.log });
      standIn = new StandIn(runtime, await runtime.snapshot(), url, workers);
      const logger = createLogger({ destination: process.stderr, level: options.env.LOG_LEVEL ?? 'warn' });
      const api = createApiApp(runtime.appServices, { bodyLimit: config.bodyLimit, logger });
      app.use(standIn.journalRequests());
      // what a data node asks the API (under /_xfer/ too, beside the control routes), and its GCS Manager API it forwards
      app.use((req, res, next) => (req.path === '/_xfer/node' || req.path === '/_xfer/node/access' || req.path.startsWith('/_xfer/gcs/') ? api(req, res, next) : next()));
      app.use('/_xfer', standIn.controlRoutes());
      app.use(standIn.injectFaults());
      app.use(standIn.runSubmittedTasks());
      const pages = createPagesApp(runtime.appServices, { ...pagesConfig, issuer: url, logger });
      // the console calls the API and the authorization service over HTTP, here on this one port;
      // its modules load on its first page (most tests never open one)
      let consoleApp: Promise<ReturnType<typeof createConsoleApp>> | null = null;
      const openConsole = () => (consoleApp ??= import('@xfer/console').then(({ createConsoleApp }) => createConsoleApp({ apiUrl: url, authUrl: url, publicUrl: url, ...credentials, logger })));
      app.use((req, res, next) => {
        if (req.path.startsWith('/v0.10/') || req.path === '/v0.10') return api(req, res, next);
        if (req.path.startsWith('/console/') || req.path === '/console') return void openConsole().then((console_) => console_(req, res, next), next);
        return pages(req, res, next);
      });
      // the nodes once the stand-in answers them: each asks it about itself as it starts
      if (nodes && !nodes.empty) {
        for (const line of await nodes.start(url, options.host, logger)) options.log(line);
        standIn.nodesCa = nodes.caFile;
      }
    }).catch(async (error: unknown) => {
      // the runtime closed what it had opened; a server it never adopted closes here
      if (server.listening) await closeServer(server);
      throw error;
    });
    return standIn!;
  }

  /** Back to the seed: every table as it was after seeding; the journal and the faults cleared, tasks in the background again. */
  async reset(): Promise<void> {
    // no task runs across a reset: the ones running finish their attempt first (on tables about to go)
    await this.workers.pause();
    await this.runtime.restore(this.seeded);
    this.journal = [];
    this.journalBytes = 0;
    this.faults = [];
    this.runtime.storages.faults.clear();
    this.progress = 'background';
    this.workers.resume();
  }

  /** In `immediate` progress, a submitted task runs (one attempt) before its submit answers. */
  private runSubmittedTasks() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (this.progress !== 'immediate' || req.method !== 'POST' || !['/v0.10/transfer', '/v0.10/delete'].includes(req.path)) return next();
      const send = res.json.bind(res);
      res.json = (body: { task_id?: unknown; code?: unknown }) => {
        if (res.statusCode !== 202 || typeof body?.task_id !== 'string') return send(body);
        void this.runtime.services.taskRunner.run(body.task_id).then(() => send(body), () => send(body));
        return res;
      };
      next();
    };
  }

  /** Stops answering (idle keep-alive connections of a test's HTTP client closed at once) and drops the database. */
  close(): Promise<void> {
    return this.runtime.close();
  }

  private journalRequests() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.path.startsWith('/_xfer/')) return next();
      res.once('finish', () => {
        const query = JSON.stringify(req.query);
        const entry: JournalEntry = {
          method: req.method,
          path: req.originalUrl.split('?')[0].slice(0, JOURNAL_QUERY_BYTES),
          query: query.length <= JOURNAL_QUERY_BYTES ? { ...req.query } : { _truncated: `${query.slice(0, JOURNAL_QUERY_BYTES)}...` },
          status: res.statusCode,
          identity_id: (res.locals.identityId as string | undefined) ?? null,
          time: new Date().toISOString(),
        };
        const bytes = JSON.stringify(entry).length;
        this.journal.push({ entry, bytes });
        this.journalBytes += bytes;
        while (this.journal.length > JOURNAL_LIMIT.entries || this.journalBytes > JOURNAL_LIMIT.bytes) this.journalBytes -= this.journal.shift()!.bytes;
      });
      next();
    };
  }

  private injectFaults() {
    return (req: Request, res: Response, next: NextFunction) => {
      const fault = this.faults.find((f) => (f.method === '*' || f.method === req.method) && req.path.startsWith(f.path));
      if (!fault) return next();
      if (--fault.count <= 0) this.faults = this.faults.filter((f) => f !== fault);
      const answer = () => {
        if (fault.status === null) return next();
        if (fault.retry_after !== null) res.set('Retry-After', String(fault.retry_after));
        res.status(fault.status).json({ code: faultCode(fault.status), message: `Injected fault ${fault.id}`, request_id: randomUUID().slice(0, 9), resource: req.path.replace(/^\/v0\.10/, '') });
      };
      if (fault.delay_ms !== null) setTimeout(answer, fault.delay_ms);
      else answer();
    };
  }

  private controlRoutes() {
    const router = express.Router();
    const error = (res: Response, status: number, code: string, message: string) => res.status(status).json({ code, message, request_id: randomUUID().slice(0, 9), resource: res.req.originalUrl });
    // a page of another site must not drive a developer's stand-in: a form posts no JSON, and a browser names its origin
    router.use((req, res, next) => {
      const origin = req.get('origin');
      if ((origin !== undefined && origin !== this.url) || req.get('sec-fetch-site') === 'cross-site') return error(res, 403, 'PermissionDenied', 'Control routes answer only their own origin');
      // a request without a body (a GET with a client's default Content-Type) has nothing to refuse
      if (req.get('content-type') !== undefined && req.is('application/json') === false) return error(res, 415, 'BadRequest', 'Control routes take JSON bodies only (Content-Type: application/json)');
      next();
    });
    router.use(express.json({ limit: '16kb' }));
    router.get('/health', (_req, res) => res.json({ status: 'ok', url: this.url }));
    router.post('/reset', async (_req, res) => {
      const started = performance.now();
      await this.reset();
      res.json({ reset: true, duration_ms: Math.round((performance.now() - started) * 10) / 10 });
    });
    router.get('/requests', (req, res) => {
      const path = typeof req.query.path === 'string' ? req.query.path : null;
      const entries = this.journal.map((r) => r.entry);
      res.json({ requests: path === null ? entries : entries.filter((r) => r.path.startsWith(path)) });
    });
    router.get('/tasks/progress', (_req, res) => res.json({ mode: this.progress }));
    router.post('/tasks/progress', async (req, res) => {
      const mode = (req.body as { mode?: unknown } | undefined)?.mode;
      if (mode !== 'background' && mode !== 'immediate' && mode !== 'manual') return error(res, 400, 'BadRequest', "Invalid 'mode': background, immediate or manual");
      this.progress = mode;
      if (mode === 'background') this.workers.resume();
      else await this.workers.pause();
      res.json({ mode });
    });
    router.post('/tasks/:taskId/run', async (req, res) => {
      if (this.progress === 'background') return error(res, 409, 'Conflict', 'Tasks run by themselves in background progress: set {"mode": "manual"} first');
      const task = await this.runtime.services.taskRunner.run(req.params.taskId.toLowerCase());
      if (!task) return error(res, 404, 'ClientError.NotFound', `No task found with id '${req.params.taskId}'`);
      res.json({ task_id: task.id, status: task.status, nice_status: task.niceStatus });
    });
    router.get('/faults', (_req, res) => res.json({ faults: this.faults, storage_faults: this.runtime.storages.faults.list() }));
    router.post('/faults', (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const bad = (why: string) => error(res, 400, 'BadRequest', why);
      // a fault of an endpoint's storage: its calls on a path (and below) fail, `count` times
      if (body.endpoint !== undefined) {
        const unknown = Object.keys(body).filter((k) => !['endpoint', 'path', 'error', 'count'].includes(k));
        if (unknown.length > 0) return bad(`Unknown fields of a storage fault: ${unknown.join(', ')}`);
        if (typeof body.endpoint !== 'string' || !isUuid(body.endpoint)) return bad("Invalid 'endpoint': the id of the endpoint whose storage fails (a share's host)");
        if (typeof body.path !== 'string' || !body.path.startsWith('/') || body.path.length > 2048) return bad("Invalid 'path': an absolute path of that storage");
        if (!(STORAGE_FAULTS as readonly unknown[]).includes(body.error)) return bad(`Invalid 'error': one of ${STORAGE_FAULTS.join(', ')}`);
        const count = body.count ?? 1;
        if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 1_000_000) return bad("Invalid 'count': how many calls, at least 1");
        if (this.runtime.storages.faults.list().length >= FAULT_LIMIT) return error(res, 409, 'LimitExceeded', `At most ${FAULT_LIMIT} storage faults pending at once: clear them (DELETE /_xfer/faults)`);
        const fault: StorageFault = { id: randomUUID(), endpoint: body.endpoint.toLowerCase(), path: body.path.length > 1 ? body.path.replace(/\/+$/, '') : body.path, error: body.error as StorageFault['error'], count: count as number };
        this.runtime.storages.faults.add(fault);
        return res.status(201).json(fault);
      }
      if (this.faults.length >= FAULT_LIMIT) return error(res, 409, 'LimitExceeded', `At most ${FAULT_LIMIT} faults pending at once: clear them (DELETE /_xfer/faults)`);
      const unknown = Object.keys(body).filter((k) => !['method', 'path', 'status', 'count', 'retry_after', 'delay_ms'].includes(k));
      if (unknown.length > 0) return bad(`Unknown fields: ${unknown.join(', ')}`);
      const method = typeof body.method === 'string' ? body.method.toUpperCase() : '*';
      if (typeof body.path !== 'string' || !body.path.startsWith('/') || body.path.length > 2048) return bad("Field 'path' is required: a path prefix such as /v0.10/endpoint/, at most 2048 characters");
      if (body.method !== undefined && (typeof body.method !== 'string' || !/^([A-Za-z]{1,16}|\*)$/.test(body.method))) return bad("Invalid 'method': an HTTP method such as GET, or *");
      const integer = (name: string, min: number, max: number): number | null | undefined => {
        const value = body[name];
        if (value === undefined || value === null) return null;
        return Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? (value as number) : undefined;
      };
      const status = integer('status', 400, 599);
      const count = integer('count', 1, 1_000_000);
      const retryAfter = integer('retry_after', 0, 86_400);
      const delay = integer('delay_ms', 1, 600_000);
      if (status === undefined) return bad("Invalid 'status': an HTTP status from 400 to 599");
      if (count === undefined) return bad("Invalid 'count': how many requests, at least 1");
      if (retryAfter === undefined) return bad("Invalid 'retry_after': seconds, 0 to 86400");
      if (delay === undefined) return bad("Invalid 'delay_ms': milliseconds, 1 to 600000");
      if (status === null && delay === null) return bad("Give 'status' (an answer) or 'delay_ms' (a delay), or both");
      const fault: Fault = { id: randomUUID(), method, path: body.path, status, retry_after: retryAfter, delay_ms: delay, count: count ?? 1 };
      this.faults.push(fault);
      res.status(201).json(fault);
    });
    router.delete('/faults', (_req, res) => {
      this.faults = [];
      this.runtime.storages.faults.clear();
      res.json({ faults: [], storage_faults: [] });
    });
    router.use((req, res) => error(res, 404, 'ClientError.NotFound', `No control route ${req.method} ${req.path}`));
    // a body that cannot be read is the caller's mistake; anything else ours: JSON either way, never a page or a stack
    router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
      const status = (error as { status?: number }).status;
      const theirs = typeof status === 'number' && status >= 400 && status < 500;
      res.status(theirs ? status : 500).json({ code: theirs ? 'BadRequest' : 'InternalError', message: theirs ? 'The request could not be read' : 'An internal error occurred', request_id: randomUUID().slice(0, 9), resource: req.originalUrl });
    });
    return router;
  }
}
