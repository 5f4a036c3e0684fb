import type { Repositories, UnitOfWork } from '@xfer/core';
import type { DataSource, EntityManager } from 'typeorm';
import { afterWrite } from './afterWrite';
import { TypeormAccessTokenRepository, TypeormGroupRepository, TypeormIdentityRepository } from './repositories/TypeormIdentityRepositories';
import {
  TypeormAuthorizationCodeRepository,
  TypeormClientRepository,
  TypeormRefreshTokenRepository,
  TypeormConsentRepository,
  TypeormScopeRepository,
  TypeormSessionRepository,
  TypeormSignInFailureRepository,
  TypeormSigningKeyRepository,
} from './repositories/TypeormAuthorizationRepositories';
import { TypeormAccessRuleRepository } from './repositories/TypeormAccessRuleRepository';
import { TypeormEndpointRepository } from './repositories/TypeormEndpointRepository';
import { TypeormPauseRuleRepository } from './repositories/TypeormPauseRuleRepository';
import { TypeormRoleRepository } from './repositories/TypeormRoleRepository';
import { TypeormServiceSettingsRepository } from './repositories/TypeormServiceSettingsRepository';
import { TypeormSubscriptionRepository } from './repositories/TypeormSubscriptionRepository';

export function typeormRepositories(manager: EntityManager): Repositories {
  return {
    endpoints: new TypeormEndpointRepository(manager),
    roles: new TypeormRoleRepository(manager),
    accessRules: new TypeormAccessRuleRepository(manager),
    pauseRules: new TypeormPauseRuleRepository(manager),
    subscriptions: new TypeormSubscriptionRepository(manager),
    identities: new TypeormIdentityRepository(manager),
    groups: new TypeormGroupRepository(manager),
    accessTokens: new TypeormAccessTokenRepository(manager),
    clients: new TypeormClientRepository(manager),
    scopes: new TypeormScopeRepository(manager),
    consents: new TypeormConsentRepository(manager),
    sessions: new TypeormSessionRepository(manager),
    signInFailures: new TypeormSignInFailureRepository(manager),
    signingKeys: new TypeormSigningKeyRepository(manager),
    authorizationCodes: new TypeormAuthorizationCodeRepository(manager),
    refreshTokens: new TypeormRefreshTokenRepository(manager),
    settings: new TypeormServiceSettingsRepository(manager),
  };
}

/**
 * Transactions over a TypeORM DataSource. SQLite (better-sqlite3) has one connection, so its
 * transactions are queued one after another; Postgres runs them concurrently on its pool.
 */
export class TypeormUnitOfWork implements UnitOfWork {
  readonly repositories: Repositories;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly serialize: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.repositories = typeormRepositories(dataSource.manager);
    this.serialize = dataSource.options.type === 'better-sqlite3';
  }

  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    if (!this.serialize) return this.dataSource.transaction((manager) => work(typeormRepositories(manager))).finally(() => afterWrite(this.dataSource));
    const run = () => this.immediate(work).finally(() => afterWrite(this.dataSource));
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * SQLite: a transaction that takes the write lock when it begins (BEGIN IMMEDIATE), where
   * TypeORM's begins deferred. Another process on the same file (a second API worker, the auth
   * app) may be writing: a deferred transaction that has read cannot wait for it (SQLite answers
   * "database is locked" at once, as waiting could deadlock), while BEGIN IMMEDIATE waits its turn
   * under the busy timeout before reading anything. Only write transactions come here: reads run
   * outside them.
   */
  private async immediate<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.query('BEGIN IMMEDIATE');
      let result: T;
      try {
        result = await work(typeormRepositories(runner.manager));
      } catch (error) {
        // SQLite may have rolled back already (on some I/O errors): the work's error is the one to tell
        await runner.query('ROLLBACK').catch((rollback: unknown) => {
          if (!/no transaction is active/.test(String(rollback))) throw rollback;
        });
        throw error;
      }
      await runner.query('COMMIT');
      return result;
    } finally {
      await runner.release();
    }
  }
}
