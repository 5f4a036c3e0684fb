export { assignRequestIds, RequestIds, requestIdOf } from './requestId';
export { createLogger, logRequestError, requestLogger, type Logger } from './logging';
export { addHealthRoutes, type HealthOfDatabase } from './health';
export { createViews, SHARED_STATIC_DIR } from './views';
export { freePort, listen, runMain } from './net';
export { bearerToken, firstValue } from './requestValues';
