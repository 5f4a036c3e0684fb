import type { Repositories, UnitOfWork } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { internalsOf, type Engine } from './engine/Engine';
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
import { TypeormNodeRepository } from './repositories/TypeormNodeRepository';
import { TypeormStorageGatewayRepository, TypeormUserCredentialRepository } from './repositories/TypeormGcsRepositories';
import { TypeormPauseRuleRepository } from './repositories/TypeormPauseRuleRepository';
import { TypeormTaskRepository } from './repositories/TypeormTaskRepository';
import { TypeormRoleRepository } from './repositories/TypeormRoleRepository';
import { TypeormServiceSettingsRepository } from './repositories/TypeormServiceSettingsRepository';
import { TypeormSubscriptionRepository } from './repositories/TypeormSubscriptionRepository';

export function typeormRepositories(engine: Engine, manager: EntityManager): Repositories {
  const sql = engine.sql(manager);
  return {
    endpoints: new TypeormEndpointRepository(manager, sql, engine.endpointSearch(manager)),
    roles: new TypeormRoleRepository(manager, sql),
    accessRules: new TypeormAccessRuleRepository(manager, sql),
    pauseRules: new TypeormPauseRuleRepository(manager),
    tasks: new TypeormTaskRepository(manager, sql),
    subscriptions: new TypeormSubscriptionRepository(manager),
    identities: new TypeormIdentityRepository(manager, sql),
    groups: new TypeormGroupRepository(manager),
    accessTokens: new TypeormAccessTokenRepository(manager, sql),
    clients: new TypeormClientRepository(manager, sql),
    scopes: new TypeormScopeRepository(manager),
    consents: new TypeormConsentRepository(manager),
    sessions: new TypeormSessionRepository(manager, sql),
    signInFailures: new TypeormSignInFailureRepository(manager),
    signingKeys: new TypeormSigningKeyRepository(manager),
    authorizationCodes: new TypeormAuthorizationCodeRepository(manager),
    refreshTokens: new TypeormRefreshTokenRepository(manager),
    settings: new TypeormServiceSettingsRepository(manager),
    nodes: new TypeormNodeRepository(manager),
    storageGateways: new TypeormStorageGatewayRepository(manager),
    userCredentials: new TypeormUserCredentialRepository(manager),
  };
}

/**
 * Units of work over an engine: its repositories outside transactions, and transactions as the
 * engine runs them (SQLite queues them on its one connection: every unit of work on the engine
 * shares that queue; Postgres runs them concurrently on its pool).
 */
export class TypeormUnitOfWork implements UnitOfWork {
  readonly repositories: Repositories;

  constructor(private readonly engine: Engine) {
    this.repositories = typeormRepositories(engine, internalsOf(engine).dataSource.manager);
  }

  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.engine.transaction((manager) => work(typeormRepositories(this.engine, manager)));
  }
}
