// Request bodies are JSON whatever the Content-Type says: `curl -d` sends form encoding by
// default, and refusing it would only puzzle users. Malformed JSON is a 422 `json_invalid` at
// the position Python's json module names, as FastAPI answers it (json-errors.ts).
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors.js';
import { pythonJsonFault } from './json-errors.js';

/** Deeper JSON would overflow the stack wherever it is serialised again (storage, answers). */
export const MAX_JSON_DEPTH = 128;

function depthExceeds(value: unknown, limit: number): boolean {
  // Iterative, so measuring a hostile body cannot overflow the stack itself.
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

export function parseJsonBody(text: string): unknown {
  // No body at all is an absent one (`missing`, as FastAPI says); whitespace is malformed JSON.
  if (text === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // NaN and Infinity, which Python reads and JSON.parse does not, are refused at the start.
    const position = pythonJsonFault(text)?.position ?? 0;
    throw new ValidationError([{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
  if (depthExceeds(body, MAX_JSON_DEPTH)) {
    throw ValidationError.at(['body'], `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'value_error');
  }
  return body;
}

/** In this Fastify scope, every body that is not multipart is read as JSON. */
export function acceptJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
