// The first key from the shell (`npm run assay -- keys create`, docs/access.md#the-first-key) and
// the real service, as a process, using it: with auth on it starts once a key exists, and no key
// (nor ASSAY_INIT_API_KEY) ever appears in its log, whatever requests carry or answer them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/endpoints.js';
import { runCli, startAssayProcess, type AssayProcess } from '../../../test/helpers/process.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-bootstrap-'));
let database: TestDatabase;
let env: NodeJS.ProcessEnv;
let service: AssayProcess | undefined;

beforeAll(async () => {
  database = await createTestDatabase(dir);
  env = { ...process.env, ...database.env };
});

afterAll(async () => {
  await service?.stop();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

const assay = (...args: string[]) => runCli(env, ...args);

describe('npm run assay -- keys create', () => {
  it('prints a new key of the project, alone on stdout; refuses unknown projects and scopes', async () => {
    const created = await assay('keys', 'create', '--project', 'default', '--scopes', 'read,admin');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^assay_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/project default with scopes read, admin/);

    const unknownProject = await assay('keys', 'create', '--project', 'nope', '--scopes', 'read');
    expect(unknownProject.code).toBe(2);
    expect(unknownProject.stderr).toMatch(/no project is named "nope"/);
    const badScope = await assay('keys', 'create', '--project', 'default', '--scopes', 'read,root');
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/unknown: root/);
    expect((await assay('keys', 'list')).stderr).toMatch(/usage: npm run assay -- keys create/);

    // The service starts with auth on, since a key exists, and the key opens it.
    const key = created.stdout.trim();
    const init = 'init-value-that-must-never-be-logged-0123';
    const grpcPort = await freePort();
    service = await startAssayProcess(dir, { ...env, ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: init, LOG_LEVEL: 'debug', OTLP_GRPC_PORT: String(grpcPort) });
    expect((await service.request('GET', '/apps')).status).toBe(401);
    expect((await service.request('GET', '/apps', undefined, { authorization: `Bearer ${key}` })).status).toBe(200);
    // A read+admin key cannot write.
    expect((await service.request('POST', '/apps', { app_name: 'x' }, { authorization: `Bearer ${key}` })).status).toBe(403);

    // Requests that carry keys, and answers that hold new ones.
    const secrets = [key, init];
    const made = await service.request('POST', '/projects', { name: 'logged' }, { authorization: `ApiKey ${init}` });
    expect(made.status).toBe(200);
    secrets.push(made.body.api_key.key);
    const gql = await service.request(
      'POST',
      '/graphql',
      { query: 'mutation { createApiKey(input: { name: "g", scopes: [READ] }) { key } }' },
      { authorization: `Bearer ${made.body.api_key.key}` },
    );
    secrets.push(gql.body.data.createApiKey.key);
    const bad = `assay_${'x'.repeat(43)}`;
    secrets.push(bad);
    expect((await service.request('GET', '/apps', undefined, { authorization: `Bearer ${bad}` })).status).toBe(401);
    const basic = `Basic ${Buffer.from(`pk:${init}`).toString('base64')}`;
    expect((await service.request('POST', '/v1/traces', { resourceSpans: [] }, { authorization: basic })).status).toBe(200);
    expect(
      (await service.request('POST', '/graphql', { query: '{ apiKeys { id } }' }, { authorization: `Bearer ${gql.body.data.createApiKey.key}` })).status,
    ).toBe(403);
    expect(await service.stop()).toBe(0);
    const log = service.messages.join('\n') + JSON.stringify(service.lines) + service.stderr();
    expect(service.lines.some((line) => line.status === 401)).toBe(true);
    for (const secret of secrets) {
      expect(log.includes(secret), 'a key in the log').toBe(false);
      expect(log.includes(Buffer.from(`pk:${secret}`).toString('base64')), 'a Basic credential in the log').toBe(false);
    }
    service = undefined;
  }, 60_000);
});
