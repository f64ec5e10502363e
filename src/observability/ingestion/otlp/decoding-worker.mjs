// The decoding thread of OTLP ingestion (decoding-thread.ts): answers each body it is sent with
// prepare-spans.ts. Plain JavaScript, so it starts the same way from the build (dist/, where prepare-spans.js
// sits beside it) and from the sources under tsx or vitest (where prepare-spans.ts does, and tsx, a
// development dependency, is registered to load it).
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const source = new URL('./prepare-spans.ts', import.meta.url);
if (existsSync(source)) (await import('tsx/esm/api')).register();
const { prepareReply } = await import(existsSync(source) ? source.href : new URL('./prepare-spans.js', import.meta.url).href);

parentPort.on('message', ({ id, signal, format, body }) => parentPort.postMessage({ id, ...prepareReply(signal, format, body) }));
