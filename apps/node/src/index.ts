export { NodeServer, type NodeServeOptions } from './NodeServer';
export { createNodeApp, apiCallVerifier, type NodeAppServices } from './http/app';
export type { NodeIdentity } from './ApiLink';
export { nodeServeSettings, type NodeServeArguments } from './config';
