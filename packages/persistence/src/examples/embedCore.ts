/**
 * Embedding the core: another service uses xfer's use cases directly, without Express or a
 * container, first on the in-memory adapters (as unit tests do), then on SQLite.
 *
 *   npm run example:embed
 */
import { createCoreServices, randomIdGenerator, systemClock, type CoreServices } from '@xfer/core';
import { InMemoryUnitOfWork } from '@xfer/core/testing';
import { openEngine } from '../engine/openEngine';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

/** An operator adds a user; the user creates an endpoint with a server, changes it and reads it back. */
export async function createAndReadEndpoint(services: CoreServices) {
  await services.admin.identities.addIdentity({ username: 'ada', name: 'Ada Lovelace' });
  const { token } = await services.admin.tokens.issueToken('ada');
  const ada = await services.authentication.authenticate(token);
  const { id } = await services.endpoints.createEndpoint(ada, {
    display_name: "Ada's lab",
    servers: [{ hostname: 'gridftp.example.org' }],
  });
  await services.endpoints.updateEndpoint(ada, id, { description: 'Where the data lives' });
  const { endpoint, roles } = await services.endpoints.getEndpoint(ada, id);
  return {
    id,
    displayName: endpoint.displayName,
    description: endpoint.snapshot.description,
    servers: endpoint.listServers().map((server) => server.id),
    roles,
  };
}

export async function inMemory() {
  return createAndReadEndpoint(createCoreServices(new InMemoryUnitOfWork(), systemClock, randomIdGenerator));
}

/** `sqlite::memory:` or `sqlite:<file>`; migrations are applied on open. */
export async function onSqlite(databaseUrl = 'sqlite::memory:') {
  const engine = await openEngine(databaseUrl);
  try {
    return await createAndReadEndpoint(createCoreServices(new TypeormUnitOfWork(engine), systemClock, randomIdGenerator));
  } finally {
    await engine.close();
  }
}

if (require.main === module) {
  (async () => {
    console.log('in memory:', await inMemory());
    console.log('on SQLite:', await onSqlite());
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
