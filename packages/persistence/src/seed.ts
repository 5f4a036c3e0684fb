import { randomUUID } from 'node:crypto';
import {
  Administration,
  Endpoint,
  newIdentity,
  systemClock,
  randomIdGenerator,
  type IdentityState,
} from '@xfer/core';
import { EndpointSchema, IdentitySchema, RoleAssignmentSchema, type EndpointRecord } from './records/schemas';
import { endpointToRecord } from './repositories/TypeormEndpointRepository';
import { internalsOf, type Engine, type RowBatch } from './engine/Engine';
import { TypeormUnitOfWork } from './TypeormUnitOfWork';

export interface SeedOptions {
  endpoints: number;
  /** Shared endpoints on the first (managed) host, counted within `endpoints`. */
  sharesOnFirstHost?: number;
  /** Called as rows are written. */
  onProgress?: (done: number, total: number) => void;
}

export interface SeedResult {
  endpoints: number;
  shares: number;
  /** Shares on the host the seeded user manages access to (what my_shared_endpoint_list returns). */
  managed_shares: number;
  owners: number;
  username: string;
  token: string;
  host_endpoint_id: string;
  sample_endpoint_ids: string[];
  /** Server endpoints the seeded user administers (targets for writes). */
  own_server_endpoint_ids: string[];
  /** Sign-in password of the seeded user, for the helper pages. */
  password: string;
}

const CHUNK = 500;
const ENDPOINT_COLUMNS = Object.keys(EndpointSchema.options.columns);
const ROLE_COLUMNS = Object.keys(RoleAssignmentSchema.options.columns);

const ORGANIZATIONS = ['Example University', 'National Lab', 'Institute of Data', 'Research Computing Center', 'Ocean Observatory'];
const WORDS = ['genomics', 'climate', 'imaging', 'archive', 'scratch', 'projects', 'cryo-em', 'astro', 'hpc', 'backup'];

/**
 * Fills a database with realistic data for benchmarks: owners, server endpoints with two servers,
 * personal endpoints, shares on one managed host, and every owner's administrator role. Rows are
 * built by the domain (Endpoint.create) and written in bulk.
 */
export async function seedDatabase(engine: Engine, options: SeedOptions): Promise<SeedResult> {
  const { dataSource } = internalsOf(engine);
  const uow = new TypeormUnitOfWork(engine);
  const admin = new Administration(uow, systemClock, randomIdGenerator);
  const suffix = randomUUID().slice(0, 8);
  const username = `bench-${suffix}`;
  const bench = await admin.identities.addIdentity({ username, name: 'Benchmark User', email: 'bench@example.org', organization: 'Benchmarks' });
  await admin.subscriptions.addSubscription(`Benchmark subscription ${suffix}`, [username]);
  const subscription = (await uow.repositories.subscriptions.listForMembers([bench.id]))[0];
  const { token } = await admin.tokens.issueToken(username);

  const total = options.endpoints;
  const shares = Math.min(options.sharesOnFirstHost ?? 0, Math.max(0, total - 1));
  const ownerCount = Math.max(1, Math.ceil(total / 1000));
  const now = new Date();
  const owners: IdentityState[] = [bench];
  const ownerRows = [];
  for (let i = 1; i < ownerCount; i++) {
    const owner = newIdentity({ id: randomUUID(), username: `owner${i}-${suffix}@example.org`, name: `Owner ${i}`, email: null, now });
    owners.push(owner);
    ownerRows.push({ ...owner, linked_at: null, created_at: now.toISOString() });
  }
  for (let i = 0; i < ownerRows.length; i += CHUNK) {
    await dataSource.createQueryBuilder().insert().into(IdentitySchema).values(ownerRows.slice(i, i + CHUNK)).execute();
  }

  const host = Endpoint.create(
    { display_name: 'Benchmark host', organization: ORGANIZATIONS[0], public: true, subscription_id: subscription.id, servers: [{ hostname: 'gridftp1.example.org' }, { hostname: 'gridftp2.example.org' }] },
    { id: randomUUID(), owner: bench, now, subscriptionId: subscription.id, setupKey: randomUUID() },
  );
  // The host's shares belong to another identity; the seeded user manages access to a few of them,
  // as a user listing "my shares" on a busy host does.
  const shareOwner = newIdentity({ id: randomUUID(), username: `share-owner-${suffix}@example.org`, name: 'Share Owner', email: null, now });
  await dataSource.createQueryBuilder().insert().into(IdentitySchema).values({ ...shareOwner, linked_at: null, created_at: now.toISOString() }).execute();
  const managedShares = Math.min(25, shares);
  const samples: string[] = [host.id];
  const own: string[] = [];
  let written = 0;
  let endpoints: EndpointRecord[] = [endpointToRecord(host.toPrimitives())];
  let roles: { id: string; endpoint_id: string; role: string; principal_type: string; principal_id: string; created_at: string; host_endpoint_id: string | null }[] = [];
  const role = (e: { id: string; owner_id: string; host: string | null }) =>
    roles.push({ id: randomUUID(), endpoint_id: e.id, role: 'administrator', principal_type: 'identity', principal_id: e.owner_id, created_at: now.toISOString(), host_endpoint_id: e.host });
  role({ id: host.id, owner_id: bench.id, host: null });

  const flush = async () => {
    if (endpoints.length === 0) return;
    const batches: RowBatch[] = [
      { table: 'endpoints', columns: ENDPOINT_COLUMNS, rows: endpoints as unknown as Record<string, unknown>[] },
      { table: 'role_assignments', columns: ROLE_COLUMNS, rows: roles },
    ];
    await engine.insertRows(batches);
    written += endpoints.length;
    endpoints = [];
    roles = [];
    options.onProgress?.(written, total);
  };

  for (let i = 1; i < total; i++) {
    const id = randomUUID();
    let endpoint: Endpoint;
    if (i <= shares) {
      endpoint = Endpoint.createShared(
        { display_name: `Share ${i}`, host_endpoint_id: host.id, host_path: `/projects/${WORDS[i % WORDS.length]}/${i}/` },
        { id, owner: shareOwner, now, host, callerIsHostAdministrator: true },
      );
      if (i <= managedShares) {
        roles.push({ id: randomUUID(), endpoint_id: id, role: 'access_manager', principal_type: 'identity', principal_id: bench.id, created_at: now.toISOString(), host_endpoint_id: host.id });
      }
    } else {
      const owner = owners[i % owners.length];
      const personal = i % 10 === 5;
      endpoint = Endpoint.create(
        {
          display_name: `${WORDS[i % WORDS.length]} ${personal ? 'laptop' : 'storage'} ${i}`,
          organization: ORGANIZATIONS[i % ORGANIZATIONS.length],
          description: `Seeded endpoint number ${i} for benchmarks`,
          keywords: `${WORDS[i % WORDS.length]},${WORDS[(i + 3) % WORDS.length]}`,
          public: i % 3 !== 0,
          ...(personal ? { personal: true } : { servers: [{ hostname: `gridftp-a.site${i}.example.org` }, { hostname: `gridftp-b.site${i}.example.org` }] }),
        },
        { id, owner, now, subscriptionId: null, setupKey: randomUUID() },
      );
    }
    endpoints.push(endpointToRecord(endpoint.toPrimitives()));
    if (endpoint.ownerId === bench.id && endpoint.kind === 'server' && own.length < 200) own.push(id);
    role({ id, owner_id: endpoint.ownerId, host: endpoint.hostEndpointId });
    if (samples.length < 100 && i % Math.max(1, Math.floor(total / 100)) === 0) samples.push(id);
    if (endpoints.length >= CHUNK) await flush();
  }
  await flush();
  // fresh statistics, so both planners pick the indexes for the bulk-loaded tables (and on SQLite the search index merged)
  await engine.settleAfterBulkLoad();
  const password = randomUUID();
  await admin.identities.setPassword(username, password);
  return { endpoints: written, shares, managed_shares: managedShares, owners: owners.length, username, token, password, host_endpoint_id: host.id, sample_endpoint_ids: samples, own_server_endpoint_ids: own };
}
