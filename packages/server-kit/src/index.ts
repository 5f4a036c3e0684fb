export { assignRequestIds, RequestIds, requestIdOf } from './requestId';
export { createLogger, logRequestError, requestLogger, type Logger } from './logging';
export { addHealthRoutes, type HealthOfDatabase } from './health';
export { coreContainer, coreServicesOf, TOKENS, type Adapters } from './composition';
export { closeGracefully } from './shutdown';
export { freePort, listen, runMain } from './net';
export { bearerToken, firstValue } from './requestValues';
