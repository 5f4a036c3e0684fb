import 'reflect-metadata';
import { apiConfig, buildApiContainer, createApp } from '@xfer/api';
import { buildHelperPagesContainer, createApp as createHelperPagesApp, helperPagesConfig } from '@xfer/helper-pages';
import type { Express } from 'express';
import { closeGracefully } from '@xfer/server-kit';
import { bootstrapDemo, checkPassword, createCoreServices, DomainError, randomIdGenerator, systemClock, type CoreServices } from '@xfer/core';
import { ConfigError, DatabaseUrlError, DEFAULT_DATABASE_URL, openDatabase, TypeormUnitOfWork } from '@xfer/persistence';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { DataSource } from 'typeorm';

/** Exit code for bad arguments and refused operations. */
export const USAGE_ERROR = 2;

export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  /** All of standard input (for --password-stdin). */
  readStdin(): Promise<string>;
}

/** The first line of standard input, as `--password-stdin` takes it. */
async function passwordFromStdin(io: Io): Promise<string> {
  return (await io.readStdin()).split(/\r?\n/)[0] ?? '';
}

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return Number(value);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * The `xfer` admin command. Each action opens the database (applying pending migrations), runs one
 * use case of the core, and closes it again.
 */
export function buildProgram(io: Io): Command {
  const program = new Command('xfer')
    .description('Administer an xfer service: identities, groups, tokens, subscriptions, roles, pause rules')
    .option('--database <url>', `database URL (env DATABASE_URL, default ${DEFAULT_DATABASE_URL})`)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  const databaseUrl = () => (program.opts().database as string | undefined) ?? io.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;

  async function withServices<T>(work: (services: CoreServices, dataSource: DataSource) => Promise<T>): Promise<T> {
    const dataSource = await openDatabase(databaseUrl());
    try {
      return await work(createCoreServices(new TypeormUnitOfWork(dataSource), systemClock, randomIdGenerator), dataSource);
    } finally {
      await dataSource.destroy();
    }
  }

  const identity = program.command('identity').description('identities (users) of this service');
  identity
    .command('add <username>')
    .description('add an identity; prints its id')
    .option('--name <name>', 'full name')
    .option('--email <email>', 'e-mail address')
    .option('--organization <organization>', 'organization')
    .option('--password-stdin', 'read a sign-in password for the helper pages from standard input')
    .action(async (username: string, options: { name?: string; email?: string; organization?: string; passwordStdin?: boolean }) => {
      const { passwordStdin, ...fields } = options;
      const password = passwordStdin ? checkPassword(await passwordFromStdin(io)) : null;
      const created = await withServices(async (s) => {
        const identity = await s.admin.addIdentity({ username, ...fields });
        if (password !== null) await s.admin.setPassword(username, password);
        return identity;
      });
      io.out(created.id);
    });
  identity
    .command('set-password <username>')
    .description('set the sign-in password of an identity, read from standard input')
    .action(async (username: string) => {
      const password = checkPassword(await passwordFromStdin(io));
      await withServices((s) => s.admin.setPassword(username, password));
      io.out(`password set for ${username}`);
    });
  identity
    .command('link <username> <other-username>')
    .description("link <other-username>'s identities into <username>'s identity set")
    .action(async (username: string, other: string) => {
      await withServices((s) => s.admin.linkIdentities(username, other));
      io.out(`linked ${other} to ${username}`);
    });

  const group = program.command('group').description('groups of identities');
  group
    .command('add <name>')
    .description('add a group; prints its id')
    .action(async (name: string) => io.out(await withServices((s) => s.admin.addGroup(name))));
  group
    .command('add-member <group> <username>')
    .description('add an identity to a group')
    .action(async (name: string, username: string) => {
      await withServices((s) => s.admin.addGroupMember(name, username));
      io.out(`added ${username} to ${name}`);
    });

  program
    .command('token')
    .description('access tokens for the API')
    .command('issue <username>')
    .description('issue a new access token; prints it (only its hash is stored)')
    .option('--expires-in <seconds>', 'lifetime in seconds (default: no expiry)', positiveInteger)
    .action(async (username: string, options: { expiresIn?: number }) => {
      const issued = await withServices((s) => s.admin.issueToken(username, options.expiresIn ?? null));
      io.out(issued.token);
    });

  program
    .command('subscription')
    .description('subscriptions that make endpoints managed')
    .command('add <name>')
    .description('add a subscription; prints its id')
    .option('--member <username|group>', 'an identity or group that may use it (repeatable)', collect, [])
    .action(async (name: string, options: { member: string[] }) => {
      io.out(await withServices((s) => s.admin.addSubscription(name, options.member)));
    });

  program
    .command('role')
    .description('endpoint roles')
    .command('grant <endpoint-id> <role> <username|group>')
    .description('grant administrator, activity_manager, activity_monitor or access_manager on an endpoint')
    .action(async (endpointId: string, role: string, principal: string) => {
      const id = await withServices((s) => s.admin.grantRole(endpointId, role, principal));
      io.out(id);
    });

  program
    .command('pause-rule')
    .description('pause rules of endpoints')
    .command('add <endpoint-id>')
    .description('pause every activity on an endpoint, for everyone or one identity; prints the rule id')
    .requiredOption('--message <text>', 'message shown to affected users')
    .option('--identity <username>', 'only this identity (default: everyone)')
    .action(async (endpointId: string, options: { message: string; identity?: string }) => {
      io.out(await withServices((s) => s.admin.addPauseRule(endpointId, options)));
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const dataSource = await openDatabase(databaseUrl(), { migrate: false });
      try {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        io.out(applied.length === 0 ? 'database is up to date' : applied.map((m) => `applied ${m.name}`).join('\n'));
      } finally {
        await dataSource.destroy();
      }
    });

  program
    .command('serve')
    .description('serve the API (API_PORT, default 8080) and the helper pages (AUTH_PORT, default 8081)')
    .option('--demo', 'on first start, create the demo identity alice with demo data, and print how to use it')
    .action(async (options: { demo?: boolean }) => {
      const config = apiConfig(io.env);
      const pagesConfig = helperPagesConfig(io.env);
      const url = databaseUrl();
      const dataSource = await openDatabase(url);
      const listen = async (app: Express, port: number) => {
        const server = app.listen(port, config.host);
        await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
        return server;
      };
      const apiServer = await listen(createApp(buildApiContainer(dataSource), { bodyLimit: config.bodyLimit }), config.apiPort);
      const pagesServer = await listen(
        createHelperPagesApp(buildHelperPagesContainer(dataSource), { trustProxy: pagesConfig.trustProxy, csrfSecret: pagesConfig.csrfSecret }),
        pagesConfig.authPort,
      );
      const apiUrl = `http://${config.host}:${config.apiPort}`;
      const authUrl = `http://${config.host}:${pagesConfig.authPort}`;
      io.out(`xfer API           ${apiUrl}/v0.10/   (database ${url})`);
      io.out(`xfer helper pages  ${authUrl}/v2/web/`);
      if (options.demo) {
        const services = createCoreServices(new TypeormUnitOfWork(dataSource), systemClock, randomIdGenerator);
        for (const line of await bootstrapDemo(services, apiUrl, authUrl)) io.out(line);
      }
      closeGracefully([apiServer, pagesServer], () => dataSource.destroy(), { log: io.out });
      await new Promise(() => undefined);
    });

  return program;
}

/** Runs the command line; returns the exit code instead of exiting, so tests can call it. */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : USAGE_ERROR;
    }
    if (error instanceof DomainError || error instanceof DatabaseUrlError || error instanceof ConfigError) {
      io.err(`xfer: ${error.message}`);
      return USAGE_ERROR;
    }
    io.err(`xfer: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
