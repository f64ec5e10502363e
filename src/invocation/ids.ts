// Ids of the traces and spans of the calls Assay makes (OTLP's form: lower-case hex).
import { randomBytes } from 'node:crypto';

/**
 * Random bytes drawn a few KB at a time: one randomBytes call per id cost more than the id's other
 * work. A pool of the process, not a service's state (docs/architecture.md#state-lives-in-services):
 * nothing in it belongs to a service.
 */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;

/** A random trace or span id in OTLP's form (lower-case hex). */
export function randomId(bytes: 16 | 8): string {
  if (idPoolOffset + bytes > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idPoolOffset = 0;
  }
  idPoolOffset += bytes;
  return idPool.toString('hex', idPoolOffset - bytes, idPoolOffset);
}

/**
 * The trace id of a call Assay makes: the time in milliseconds (6 bytes), then 10 random bytes,
 * as AWS X-Ray's ids lead with the time. Ids that grow with time land at the end of the trace
 * indexes instead of on a random page each, which made storing a batch of cases write a fraction
 * of the pages. W3C Trace Context asks only that the last 7 bytes be random.
 */
export function newTraceId(): string {
  return Date.now().toString(16).padStart(12, '0') + randomId(16).slice(12);
}
