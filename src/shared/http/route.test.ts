// restRoutes on a real Fastify instance over loopback: the schemas a route describes are the ones
// that validate it (422 in FastAPI's shape, faults of path, query and body together), the handler
// gets the parsed values, and /openapi.json describes the very same schemas.
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requester } from '../../../test/helpers/server.js';
import { int } from '../validation.js';
import { acceptJsonBodies } from './body.js';
import { registerErrorHandling } from './errors.js';
import type { UploadedFile } from './multipart.js';
import { registerApiDocs } from './openapi.js';
import { intParam } from './params.js';
import { restRoutes } from './route.js';

const thingBody = z.object({ name: z.string().trim().min(1), count: int({ min: 1 }) });
const thingQuery = z.object({
  limit: z.string().transform(Number).pipe(z.number().int().min(1)).default(10),
  verbose: z.enum(['yes', 'no']).default('no'),
});
const uploadBody = z.object({ file: z.custom<UploadedFile>((value) => Buffer.isBuffer((value as UploadedFile | undefined)?.content)), label: z.string() });

let app: FastifyInstance;
let request: ReturnType<typeof requester>;
const handled: unknown[] = [];
let invalid = 0;

beforeAll(async () => {
  app = Fastify({ logger: false });
  registerErrorHandling(app);
  registerApiDocs(app);
  await app.register(async (scope) => {
    acceptJsonBodies(scope);
    await scope.register(multipart, { limits: { files: 1 } });
    const rest = restRoutes(scope);
    rest.post(
      '/shelves/:shelf/things/:position',
      { tag: 'test', summary: 'Put a thing', params: z.object({ shelf: z.string(), position: intParam() }), query: thingQuery, body: thingBody },
      (_req, input) => {
        handled.push(input);
        // The static types are the schemas' outputs: a number, a trimmed string, a default.
        const position: number = input.params.position;
        const count: number = input.body.count;
        const verbose: 'yes' | 'no' = input.query.verbose;
        return { position, count, verbose, name: input.body.name, limit: input.query.limit, types: [typeof position, typeof input.query.limit] };
      },
      { onInvalid: () => invalid++ },
    );
    rest.get('/shelves/:shelf', { tag: 'test', summary: 'Read a shelf' }, (_req, { params, query, body }) => ({ shelf: params.shelf, query, body }));
    rest.post('/uploads', { tag: 'test', summary: 'Upload', body: uploadBody, multipart: true }, (_req, { body }) => ({
      label: body.label,
      filename: body.file.filename,
      text: body.file.content.toString('utf8'),
    }));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  request = requester(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await app.close();
});

describe('restRoutes', () => {
  it('hands the handler the parsed, coerced values', async () => {
    const response = await request('POST', '/shelves/top/things/3?limit=25', { name: '  lamp ', count: 2 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ position: 3, count: 2, verbose: 'no', name: 'lamp', limit: 25, types: ['number', 'number'] });
    expect(handled.at(-1)).toEqual({ params: { shelf: 'top', position: 3 }, query: { limit: 25, verbose: 'no' }, body: { name: 'lamp', count: 2 } });
  });

  it('refuses with the described body schema, before the handler runs', async () => {
    const before = handled.length;
    const response = await request('POST', '/shelves/top/things/3', { name: ' ', count: 'two' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [
        { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
        { loc: ['body', 'count'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
      ],
    });
    expect(handled.length).toBe(before);
    const missing = await request('POST', '/shelves/top/things/3', undefined);
    expect(missing.body).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });

  it('lists the faults of path, query and body together, in that order', async () => {
    const response = await request('POST', '/shelves/top/things/third?verbose=maybe', { name: 'lamp' });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['path', 'position'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
      { loc: ['query', 'verbose'], msg: "Input should be 'yes' or 'no'", type: 'enum' },
      { loc: ['body', 'count'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('calls onInvalid for a refused request only', async () => {
    const before = invalid;
    await request('POST', '/shelves/top/things/1', { name: 'lamp', count: 1 });
    expect(invalid).toBe(before);
    await request('POST', '/shelves/top/things/1', { name: 'lamp', count: 0 });
    expect(invalid).toBe(before + 1);
  });

  it('gives a route without schemas its URL parameters as strings and nothing else', async () => {
    const response = await request('GET', '/shelves/top?ignored=1');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ shelf: 'top' });
  });

  it('reads a multipart body into the fields its schema validates', async () => {
    const form = new FormData();
    form.append('label', 'capitals');
    form.append('file', new Blob(['a,b\n1,2\n']), 'data.csv');
    const response = await request('POST', '/uploads', form);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ label: 'capitals', filename: 'data.csv', text: 'a,b\n1,2\n' });
    const noFile = new FormData();
    noFile.append('label', 'capitals');
    const refused = await request('POST', '/uploads', noFile);
    expect(refused.status).toBe(422);
    expect(refused.body.detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([['body', 'file']]);
  });

  it('describes in /openapi.json the schemas it validates with', async () => {
    const doc = (await request('GET', '/openapi.json')).body;
    const operation = doc.paths['/shelves/{shelf}/things/{position}'].post;
    expect(operation.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 1 } },
      required: ['name', 'count'],
    });
    const parameters = Object.fromEntries(
      operation.parameters.map((parameter: { in: string; name: string; schema: object }) => [`${parameter.in}:${parameter.name}`, parameter.schema]),
    );
    expect(parameters['path:position']).toMatchObject({ type: 'integer' });
    expect(parameters['path:shelf']).toEqual({ type: 'string' });
    expect(parameters['query:verbose']).toMatchObject({ enum: ['yes', 'no'] });
    expect(operation.responses['422']).toEqual({ $ref: '#/components/responses/UnprocessableEntity' });
    expect(doc.paths['/uploads'].post.requestBody.content).toHaveProperty(['multipart/form-data']);
  });

  it('refuses at registration a params schema that does not name the URL parameters', () => {
    const other = Fastify({ logger: false });
    expect(() => restRoutes(other).get('/shelves/:shelf', { tag: 'test', summary: 'Wrong', params: z.object({ shelf_id: z.string() }) }, () => null)).toThrow(
      /params schema names shelf_id, the URL shelf/,
    );
    return other.close();
  });
});

describe("the domains' routes", () => {
  // docs/api.md "Routes that do not validate through restRoutes" gives each exception's reason.
  const exceptions = [
    "described({\n      tag,\n      summary: 'Rename a config or replace its settings',",
    'evaluators.updateEvaluatorConfig(req.ctx, req.params.config_id, req.body)',
  ];

  it('validate only through restRoutes: no parseInput, no described(...) nor raw req.body/req.query but the listed exceptions', () => {
    const src = join(import.meta.dirname, '../..');
    const files = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(src, entry.name, 'routes.ts'))
      .filter((file) => existsSync(file));
    expect(files.length).toBeGreaterThanOrEqual(7);
    const found: string[] = [];
    for (const file of files) {
      let text = readFileSync(file, 'utf8');
      for (const allowed of exceptions) text = text.replace(allowed, '');
      // onInvalid gets the raw request on purpose: the body was refused, there is no parsed one.
      text = text.replace(/onInvalid: \(req\) => \w+\(req\.ctx, req\.body\)/g, '');
      for (const pattern of [/parseInput\(/g, /described\(/g, /req\.body/g, /req\.query/g, /req\.params/g]) {
        for (const match of text.matchAll(pattern)) found.push(`${file}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
