const { Worker } = require('worker_threads');
const path = require('path');
const t0 = Date.now();
const code = `
const { workerData, parentPort } = require('worker_threads');
require(workerData.tsNode).register({ swc: true, project: workerData.tsconfig });
const paths = require(workerData.tsconfigPaths);
const cfg = require(workerData.tsconfig);
paths.register({ baseUrl: workerData.root, paths: cfg.compilerOptions.paths });
const m = require(workerData.script);
parentPort.postMessage(Object.keys(m).slice(0,5));
`;
const root = path.resolve(__dirname, '..');
const w = new Worker(code, { eval: true, workerData: { tsNode: require.resolve('ts-node'), tsconfigPaths: require.resolve('tsconfig-paths'), tsconfig: path.join(root, 'tsconfig.json'), root, script: path.join(root, 'packages/persistence/src/engine/sqlite/fts5.ts') } });
w.on('message', (m) => { console.log('got', m, Date.now() - t0, 'ms'); w.terminate(); });
w.on('error', (e) => console.log('error', e));
