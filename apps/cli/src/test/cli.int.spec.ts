import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreServices, randomIdGenerator, systemClock } from '@xfer/core';
import { openDatabase, TypeormUnitOfWork } from '@xfer/persistence';
import { run, USAGE_ERROR } from '../program';

/** Runs `xfer` in-process against a temporary SQLite file and captures what it prints. */
describe('xfer admin command', () => {
  let dir: string;
  let databaseUrl: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-cli-'));
    databaseUrl = `sqlite:${join(dir, 'xfer.sqlite')}`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function xfer(...argv: string[]) {
    return xferWithInput('', ...argv);
  }

  async function xferWithInput(stdin: string, ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env: { DATABASE_URL: databaseUrl }, readStdin: async () => stdin };
    const code = await run(argv, io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  async function inspect<T>(look: (uow: TypeormUnitOfWork, services: ReturnType<typeof createCoreServices>) => Promise<T>): Promise<T> {
    const dataSource = await openDatabase(databaseUrl);
    try {
      const uow = new TypeormUnitOfWork(dataSource);
      return await look(uow, createCoreServices(uow, systemClock, randomIdGenerator));
    } finally {
      await dataSource.destroy();
    }
  }

  it('adds an identity, printing its id, and refuses a duplicate with exit code 2', async () => {
    const added = await xfer('identity', 'add', 'carol', '--name', 'Carol C', '--email', 'carol@example.org', '--organization', 'Uni');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await inspect((u) => u.repositories.identities.findByUsername('carol'));
    expect(stored).toMatchObject({ id: added.out, name: 'Carol C', email: 'carol@example.org', organization: 'Uni' });
    const again = await xfer('identity', 'add', 'carol');
    expect(again).toMatchObject({ code: USAGE_ERROR, err: "xfer: Identity 'carol' already exists" });
  });

  it('rejects a bad e-mail without writing anything', async () => {
    const res = await xfer('identity', 'add', 'dave', '--email', 'nope');
    expect(res.code).toBe(USAGE_ERROR);
    expect(res.err).toContain('not an e-mail address');
    expect(await inspect((u) => u.repositories.identities.findByUsername('dave'))).toBeNull();
  });

  it('sets a sign-in password from standard input, stored as an scrypt hash', async () => {
    expect((await xferWithInput('first password\n', 'identity', 'add', 'erin', '--password-stdin')).code).toBe(0);
    const stored = await inspect((u) => u.repositories.identities.findByUsername('erin'));
    expect(stored?.password_hash).toMatch(/^scrypt\$/);
    const signIn = (password: string) => inspect((_u, services) => services.helperPages.signIn('erin', password));
    await expect(signIn('first password')).resolves.toHaveProperty('secret');
    expect((await xferWithInput('second password', 'identity', 'set-password', 'erin')).out).toBe('password set for erin');
    await expect(signIn('first password')).rejects.toThrow('Wrong username or password');
    await expect(signIn('second password')).resolves.toHaveProperty('secret');
    const short = await xferWithInput('short\n', 'identity', 'add', 'frank', '--password-stdin');
    expect(short).toMatchObject({ code: USAGE_ERROR, err: 'xfer: Invalid password: at least 8 characters' });
    expect(await inspect((u) => u.repositories.identities.findByUsername('frank'))).toBeNull();
  });

  it('links identities into one set', async () => {
    await xfer('identity', 'add', 'carol');
    await xfer('identity', 'add', 'carol@work.example.org');
    const res = await xfer('identity', 'link', 'carol', 'carol@work.example.org');
    expect(res).toMatchObject({ code: 0, out: 'linked carol@work.example.org to carol' });
    const set = await inspect(async (u) => {
      const carol = await u.repositories.identities.findByUsername('carol');
      return u.repositories.identities.listSet(carol!.set_id);
    });
    expect(set.map((i) => i.username)).toEqual(['carol', 'carol@work.example.org']);
    expect((await xfer('identity', 'link', 'carol', 'nobody')).code).toBe(USAGE_ERROR);
  });

  it('adds groups and members', async () => {
    await xfer('identity', 'add', 'carol');
    const group = await xfer('group', 'add', 'lab');
    expect(group.out).toMatch(/^[0-9a-f-]{36}$/);
    expect((await xfer('group', 'add-member', 'lab', 'carol')).code).toBe(0);
    const groups = await inspect(async (u) => u.repositories.groups.groupIdsOf([(await u.repositories.identities.findByUsername('carol'))!.id]));
    expect(groups).toEqual([group.out]);
    expect((await xfer('group', 'add-member', 'nolab', 'carol')).err).toContain("No such group 'nolab'");
  });

  it('issues tokens that authenticate as the identity, storing only their hash', async () => {
    const id = (await xfer('identity', 'add', 'carol')).out;
    const issued = await xfer('token', 'issue', 'carol', '--expires-in', '3600');
    expect(issued.out).toMatch(/^xfer_[A-Za-z0-9_-]{43}$/);
    const principal = await inspect((_u, services) => services.authentication.authenticate(issued.out));
    expect(principal.primary.id).toBe(id);
    expect((await xfer('token', 'issue', 'carol', '--expires-in', 'soon')).code).toBe(USAGE_ERROR);
  });

  it('adds subscriptions for identities and groups, grants roles and adds pause rules', async () => {
    await xfer('identity', 'add', 'carol');
    await xfer('group', 'add', 'lab');
    const sub = await xfer('subscription', 'add', 'Lab subscription', '--member', 'carol', '--member', 'lab');
    expect(sub.out).toMatch(/^[0-9a-f-]{36}$/);
    expect((await xfer('subscription', 'add', 'Other', '--member', 'ghost')).err).toContain("No identity or group named 'ghost'");
    const endpointId = await inspect(async (u, services) => {
      const carol = await services.authentication.principalOf((await u.repositories.identities.findByUsername('carol'))!.id);
      return (await services.endpoints.createEndpoint(carol, { display_name: 'E', subscription_id: sub.out })).id;
    });
    const role = await xfer('role', 'grant', endpointId, 'access_manager', 'lab');
    expect(role.code).toBe(0);
    expect((await xfer('role', 'grant', endpointId, 'access_manager', 'lab')).err).toContain('already exists');
    expect((await xfer('role', 'grant', endpointId, 'superuser', 'lab')).err).toContain("Invalid role 'superuser'");
    expect((await xfer('role', 'grant', '11111111-2222-4333-8444-555555555555', 'administrator', 'carol')).err).toContain('No such endpoint');
    const rule = await xfer('pause-rule', 'add', endpointId, '--message', 'Disk swap', '--identity', 'carol');
    expect(rule.code).toBe(0);
    const rules = await inspect((u) => u.repositories.pauseRules.listForEndpoint(endpointId));
    expect(rules).toEqual([expect.objectContaining({ id: rule.out, message: 'Disk swap', pause_task_transfer_read: true })]);
    expect((await xfer('pause-rule', 'add', endpointId)).code).toBe(USAGE_ERROR);
  });

  it('migrates, and says so when there is nothing to do', async () => {
    expect((await xfer('migrate')).out).toContain('applied InitialSchema');
    expect((await xfer('migrate')).out).toBe('database is up to date');
  });

  it('answers unknown commands, missing arguments and bad database URLs with exit code 2', async () => {
    expect((await xfer('frobnicate')).code).toBe(USAGE_ERROR);
    expect((await xfer('identity', 'add')).err).toContain("missing required argument 'username'");
    expect((await xfer('--database', 'mysql://x', 'migrate')).err).toContain('is not supported');
    expect((await xfer('--help')).code).toBe(0);
  });
});
