// Request bodies are JSON (docs/validation.md#malformed-json). As FastAPI does, a body is read as JSON when
// its Content-Type is JSON's (`application/json`, `application/…+json`) or absent, and malformed
// JSON is a 422 `json_invalid` at the position Python's json module names (json-errors.ts); a
// body of another type is not JSON to read, so FastAPI validates the raw text, which no model
// accepts: 422 `model_attributes_type` at `["body"]`. One leniency: form encoding, which `curl -d`
// sends by default, is read as JSON when it is JSON, since refusing it would only puzzle users.
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

/** Whether FastAPI reads a body of this Content-Type as JSON: none given, or JSON's. */
function declaresJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The body of a request as the route validates it; a body that is not JSON answers FastAPI's 422. */
function readBody(contentType: string | undefined, text: string): unknown {
  if (text === '' || declaresJson(contentType)) return parseJsonBody(text);
  if (contentType?.split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    try {
      return parseJsonBody(text);
    } catch (error) {
      if (!(error instanceof ValidationError) || error.issues[0]?.type !== 'json_invalid') throw error;
    }
  }
  // Every JSON body of the API is a model, so this is the one fault FastAPI names.
  throw new ValidationError([
    { loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: text },
  ]);
}

/** In this Fastify scope, every body that is not multipart is read as JSON. */
export function acceptJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    try {
      done(null, readBody(request.headers['content-type'], body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
