// Request bodies are JSON whatever the Content-Type says: `curl -d` sends form encoding by
// default, and refusing it would only puzzle users. Malformed JSON is a 422 `json_invalid` at
// the offending position, as FastAPI answers it.
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors.js';

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    // Node names the offending position, or says the text ended early (position = its length).
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1] ?? (/end of JSON input/.test(message) ? String(text.length) : undefined);
    const loc: (string | number)[] = position === undefined ? ['body'] : ['body', Number(position)];
    throw new ValidationError([{ loc, msg: 'JSON decode error', type: 'json_invalid' }]);
  }
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
