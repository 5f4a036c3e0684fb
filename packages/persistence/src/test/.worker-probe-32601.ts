import { parentPort } from 'node:worker_threads';
import { SEARCHED_FIELDS } from '@xfer/core';
const fields: string[] = SEARCHED_FIELDS.map(([f]) => f);
parentPort!.postMessage('ready');
parentPort!.postMessage(fields[0]);
