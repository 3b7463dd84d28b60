// The worker thread that reads an OpenAPI document (read.ts): registers a TypeScript loader, runs the read, answers once.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { readForWorker } = await import('./read.ts');
const { bytes, name, where, maxBytes } = workerData;
const reply = readForWorker(bytes, name, where, maxBytes);
// the read's bytes are moved, not copied: the Gateway's thread only decodes them (each part is its own ArrayBuffer)
parentPort?.postMessage(reply, reply.ok ? reply.parts.map((part) => /** @type {ArrayBuffer} */ (part.buffer)) : []);
