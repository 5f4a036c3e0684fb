import type { Server } from 'node:http';
import { TaskDispatch, type CoreServices, type ReadMemo, type UnitOfWork } from '@xfer/core';
import { openEngine, openMemoryEngine, seedDatabase, TypeormUnitOfWork, type Engine, type EngineOptions, type SeedOptions, type SeedResult, type SqliteEngine, type TableSnapshot } from '@xfer/persistence';
import { listen, type HealthOfDatabase } from '@xfer/server-kit';
import { EndpointStorages, NodeCallSigner, type MemoryFiles } from '@xfer/storage';
import type { Express } from 'express';
import { processContainer, resolveCoreServices, type CoreSettings } from './composition';
import { InProcessTaskQueue } from './InProcessTaskQueue';
import { TaskWorkers, type TaskWorkerOptions, type TaskWorkerPool } from './TaskWorkers';

/**
 * The kinds of process, each with the engine it needs: a server keeps a read cache and (on an
 * SQLite file) its search and checkpoint threads; a one-shot command has neither, nor does the
 * console, a server whose pages go through the API (it only registers itself in the database);
 * a worker runs tasks and serves no reads (no cache, the checkpoint thread for its writes);
 * the stand-in runs on a throwaway in-memory database it can snapshot and restore.
 */
export type ProcessKind = 'server' | 'console' | 'command' | 'worker' | 'standIn';

const ENGINE_OPTIONS: Record<Exclude<ProcessKind, 'standIn'>, EngineOptions> = {
  server: { readCache: true, background: true },
  console: { readCache: false, background: false, poolSize: 1 },
  command: { readCache: false, background: false },
  worker: { readCache: false, background: true },
};

export interface RuntimeOptions {
  kind: ProcessKind;
  /** The database, as DATABASE_URL says (not for the stand-in). */
  databaseUrl?: string;
  /** Postgres: connections this process keeps. */
  poolSize?: number;
  /** Apply pending migrations when opening (default true; an API worker of a cluster leaves it to the primary). */
  migrate?: boolean;
  /** How the core services are built. */
  core?: CoreSettings;
  /** A CA (PEM) trusted for data nodes beside the system's and NODE_EXTRA_CA_CERTS: the stand-in's own nodes'. */
  nodeCa?: string;
}

/** The stand-in's state to go back to: its tables and its endpoints' memory trees. */
export interface StandInSnapshot {
  tables: TableSnapshot;
  trees: Map<string, MemoryFiles>;
}

/** The task workers a submit in this process wakes (none until they start). */
interface TaskWake {
  workers: TaskWorkerPool | null;
}

/** Something that must stop before the engine closes, with a name for messages. */
interface Stoppable {
  name: string;
  stop: () => Promise<void>;
}

/**
 * The one runtime of a process: opens the engine (the only place that does, for a server or a
 * command), builds the process's one container and resolves the core services from it once, and
 * keeps the ordered list of what must stop before the engine closes (HTTP servers, housekeeping,
 * later the task workers). `close()` stops them in the reverse order of their adding, then closes
 * the engine; once.
 */
export class Runtime {
  private readonly stoppables: Stoppable[] = [];
  private closing: Promise<void> | null = null;

  private constructor(
    readonly kind: ProcessKind,
    private readonly engine: Engine,
    /** The core services, resolved once from the process's container. */
    readonly services: CoreServices,
    readonly uow: UnitOfWork,
    readonly readMemo: ReadMemo,
    readonly database: HealthOfDatabase,
    /** The storage behind the endpoints (the memory trees live as long as the process). */
    readonly storages: EndpointStorages,
    private readonly memory: SqliteEngine | null,
    private readonly databaseUrl: string | null,
    private readonly wake: TaskWake,
  ) {}

  /** Opens the engine for this kind of process and builds the services over it. */
  static async open(options: RuntimeOptions): Promise<Runtime> {
    let engine: Engine;
    let memory: SqliteEngine | null = null;
    if (options.kind === 'standIn') {
      memory = await openMemoryEngine();
      engine = memory;
    } else {
      if (!options.databaseUrl) throw new Error(`a ${options.kind} runtime needs a database URL`);
      engine = await openEngine(options.databaseUrl, { ...ENGINE_OPTIONS[options.kind], ...(options.poolSize !== undefined && { poolSize: options.poolSize }), migrate: options.migrate });
    }
    // the TypeORM repositories behind one unit of work, which every app of the process shares (its transactions queue on the engine)
    const adapters = { uow: new TypeormUnitOfWork(engine), readMemo: engine.readMemo, database: engine };
    // the stand-in gives every endpoint without storage a memory tree of its own; a node-bound
    // endpoint's storage is reached through its node, found by its id
    // the key this process signs its calls to nodes with is its own, in its memory: the database
    // keeps its public half only (published through the node administration, once services exist)
    const published: { services: CoreServices | null } = { services: null };
    const signer = new NodeCallSigner(async (key) => {
      if (!published.services) throw new Error('the runtime is not open yet');
      await published.services.admin.nodes.publishCallKey(key);
    });
    const storages = new EndpointStorages(options.kind === 'standIn' ? 'memory' : 'none', {
      find: async (nodeId) => {
        const node = await adapters.uow.repositories.nodes.findById(nodeId);
        return node && { url: node.url };
      },
      signer,
      extraCa: options.nodeCa,
    });
    // a task accepted here wakes this process's workers, once they run
    const wake: TaskWake = { workers: null };
    const services = resolveCoreServices(processContainer(adapters, { storages, taskSubmitted: () => wake.workers?.nudge(), ...options.core }));
    published.services = services;
    const runtime = new Runtime(options.kind, engine, services, adapters.uow, adapters.readMemo, adapters.database, storages, memory, options.databaseUrl ?? null, wake);
    // closed last, after the task workers that copy through them
    runtime.onClose('the endpoint storages', () => storages.close());
    return runtime;
  }

  /**
   * Opens a runtime and lets `setup` start what the process runs on it (servers, housekeeping);
   * a failure anywhere closes what was already open, then throws.
   */
  static async start(options: RuntimeOptions, setup: (runtime: Runtime) => Promise<void>): Promise<Runtime> {
    const runtime = await Runtime.open(options);
    try {
      await setup(runtime);
    } catch (error) {
      await runtime.close();
      throw error;
    }
    return runtime;
  }

  /** A one-shot command: opens, works, and closes in `finally`. */
  static async run<T>(options: Omit<RuntimeOptions, 'kind'>, work: (runtime: Runtime) => Promise<T>): Promise<T> {
    const runtime = await Runtime.open({ ...options, kind: 'command' });
    try {
      return await work(runtime);
    } finally {
      await runtime.close();
    }
  }

  /** Which database the process runs on. */
  get databaseName(): 'sqlite' | 'postgres' {
    return this.engine.name;
  }

  /** What the apps take: the core services, the read memo, and the database for their health checks. */
  get appServices(): CoreServices & { readMemo: ReadMemo; database: HealthOfDatabase } {
    return { ...this.services, readMemo: this.readMemo, database: this.database };
  }

  /**
   * Task workers on this runtime (`concurrency` 0: none), stopped before the engine closes with
   * the tasks they run finished or handed back (ACTIVE, taken up at the next start). On Postgres
   * they share the work with every other process's through a pg-boss queue; on SQLite this
   * process is the only one running tasks.
   */
  async startTaskWorkers(options: TaskWorkerOptions): Promise<TaskWorkerPool> {
    const dispatch = new TaskDispatch(this.uow, this.services.taskRunner, { retryMs: options.retryMs });
    const shared = this.engine.name === 'postgres' && options.concurrency > 0 && this.databaseUrl;
    const queue = shared ? await (await import('./PgBossTaskQueue')).PgBossTaskQueue.open(dispatch, this.databaseUrl!, options) : new InProcessTaskQueue(dispatch, options.concurrency);
    const workers: TaskWorkerPool = new TaskWorkers(queue, dispatch, options).start();
    this.wake.workers = workers;
    this.onClose('task workers', () => workers.stop());
    return workers;
  }

  /** `stop` runs when the runtime closes, before the engine, in the reverse order of adding. */
  onClose(name: string, stop: () => Promise<void> | void): void {
    if (this.closing) throw new Error(`the runtime is closing: cannot add ${name}`);
    this.stoppables.push({ name, stop: async () => stop() });
  }

  /**
   * Starts `app` on host:port (a ConfigError naming `setting` when it cannot); on close the server
   * stops accepting connections and finishes the requests in flight.
   */
  async listen(app: Express, port: number, host: string, setting: string): Promise<Server> {
    const server = await listen(app, port, host, setting);
    this.onClose(`the server on ${setting}`, () => closeServer(server));
    return server;
  }

  /** The stand-in's tables and memory trees as they are now, to restore later. */
  async snapshot(): Promise<StandInSnapshot> {
    return { tables: await this.inMemory().snapshot(), trees: this.storages.snapshot() };
  }

  /** The stand-in's tables and memory trees as a snapshot had them. */
  async restore(snapshot: StandInSnapshot): Promise<void> {
    await this.inMemory().restore(snapshot.tables);
    this.storages.restore(snapshot.trees);
  }

  /** Applies pending migrations; returns their names (`xfer migrate`). */
  migrate(): Promise<string[]> {
    return this.engine.migrate();
  }

  /** Fills the database with realistic data for benchmarks (`xfer seed`), in bulk. */
  seedForBenchmarks(options: SeedOptions): Promise<SeedResult> {
    return seedDatabase(this.engine, options);
  }

  /** Stops what was added, the last first, then closes the engine; once (later calls wait for the first). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const failures: unknown[] = [];
      for (const { stop } of [...this.stoppables].reverse()) {
        try {
          await stop();
        } catch (error) {
          failures.push(error);
        }
      }
      await this.engine.close();
      if (failures.length > 0) throw failures[0];
    })();
    return this.closing;
  }

  /**
   * On SIGTERM or SIGINT: closes (servers finish the requests in flight first), then exits 0;
   * gives up after `timeoutMs` with exit 1.
   */
  closeOnSignals(options: { timeoutMs?: number; log?: (line: string) => void } = {}): void {
    const stop = (signal: string) => {
      options.log?.(`${signal}: finishing requests in flight, then stopping`);
      setTimeout(() => process.exit(1), options.timeoutMs ?? 10_000).unref();
      this.close().then(
        () => process.exit(0),
        (error: unknown) => {
          options.log?.(`stopping failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  }

  private inMemory(): SqliteEngine {
    if (!this.memory) throw new Error('only the stand-in snapshots its tables');
    return this.memory;
  }
}

/** Stops accepting connections, closes idle keep-alive ones, and resolves when the requests in flight are answered. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
