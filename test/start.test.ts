// `npm start` on a fresh machine: the build (`npm run build`, which `npm start` runs first, the web
// UI included), then the compiled dist/main.js creates and migrates its SQLite file itself, serves
// (the UI too), and a second start applies nothing; the plain .mjs worker files are in dist/ next
// to their compiled neighbours, and a JavaScript code evaluator runs in the compiled service's
// QuickJS worker. Run as a real child process, as a user would. (The other tests run the TypeScript source.)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint } from './helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, firstCaseResult } from './helpers/evaluations.js';
import { requester } from './helpers/server.js';

const root = new URL('..', import.meta.url).pathname;
const main = join(root, 'dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'assay-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Incremental: a fraction of a second when dist/ is up to date, a few seconds from scratch.
beforeAll(() => {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build exited with ${build.status}: ${build.stdout}${build.stderr}`);
}, 120_000);

interface Started {
  child: ChildProcess;
  url: string;
  messages: string[];
}

/** Starts dist/main.js (or `command`) with `env`; resolves once it listens, with its log messages so far. */
function start(
  env: Record<string, string>,
  command: { file: string; args: string[]; cwd: string } = { file: process.execPath, args: [main], cwd: dir },
): Promise<Started> {
  const child = spawn(command.file, command.args, {
    cwd: command.cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: string[] = [];
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return; // npm's own lines, when started through npm
      const { msg } = JSON.parse(line) as { msg: string };
      messages.push(msg);
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(msg);
      if (listening) resolve({ child, url: listening[1], messages });
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [main], {
    cwd: dir,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('starting the service', () => {
  it('runs through `npm start`, which hands its stop signal on to the service', async () => {
    const service = await start({ DATABASE_URL: `file:${join(dir, 'npm.db')}` }, { file: 'npm', args: ['--silent', 'start'], cwd: root });
    expect((await requester(service.url)('GET', '/apps')).status).toBe(200);
    // The build made the web UI, and the compiled service finds it (docs/ui.md#urls).
    const page = await requester(service.url)('GET', '/', undefined, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(page.text)![1];
    expect((await requester(service.url)('GET', asset)).status).toBe(200);
    await stop(service.child);
    // npm has exited; so has the service it started (the start script execs it).
    await expect(fetch(`${service.url}/apps`)).rejects.toThrow();
  });

  it('creates and migrates ./data/assay.db by default, serves, and migrates nothing the second time', async () => {
    const first = await start({});
    expect(existsSync(join(dir, 'data', 'assay.db'))).toBe(true);
    expect(first.messages).toContain('applied migration 0001_init');
    const created = await fetch(`${first.url}/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_name: 'kept' }),
    });
    expect(created.status).toBe(200);
    expect(await stop(first.child)).toBe(0);

    const second = await start({});
    expect(second.messages.filter((m) => m.startsWith('applied migration'))).toEqual([]);
    const apps = await (await fetch(`${second.url}/api/apps`)).json();
    expect(apps.map((app: { app_name: string }) => app.app_name)).toEqual(['kept']);
    expect(await stop(second.child)).toBe(0);
  });

  it('refuses to start with an invalid setting, naming it', async () => {
    const { code, stderr } = await run({ PORT: 'eighty', MAX_BODY_BYTES: '-1' });
    expect(code).toBe(1);
    expect(stderr).toContain('PORT:');
    expect(stderr).toContain('MAX_BODY_BYTES:');
  });

  it('refuses to serve without keys on a non-loopback address unless ASSAY_AUTH=off', async () => {
    const { code, stderr } = await run({ HOST: '0.0.0.0' });
    expect(code).toBe(1);
    expect(stderr).toContain('ASSAY_AUTH=off');
    const open = await start({ HOST: '0.0.0.0', ASSAY_AUTH: 'off', DATABASE_URL: `file:${join(dir, 'open.db')}` });
    expect(await stop(open.child)).toBe(0);
  });

  it('puts every plain .mjs file of src/ in dist/, and runs a JavaScript code evaluator in the compiled QuickJS worker', async () => {
    const mjs = (base: string) => (readdirSync(base, { recursive: true }) as string[]).filter((file) => file.endsWith('.mjs')).sort();
    const workers = mjs(join(root, 'src'));
    expect(workers.length).toBeGreaterThan(0);
    expect(mjs(join(root, 'dist'))).toEqual(expect.arrayContaining(workers));

    const endpoint = await startEndpoint(() => ({ body: { message: 'Paris' } }));
    const service = await start({ DATABASE_URL: `file:${join(dir, 'code.db')}`, OTLP_GRPC_PORT: '0' });
    try {
      const server = { request: requester(service.url) };
      const appId = await createApp(server);
      const variant = await createEndpointVariant(server, appId, endpoint.url);
      const testset = await createTestset(server, [{ country: 'France', correct_answer: 'Paris' }]);
      const code = 'function evaluate(app_params, inputs, output, correct_answer) { return output === correct_answer ? 0.75 : 0.25 }';
      const config = await createConfig(server, appId, 'auto_custom_code_run', { code, runtime: 'javascript' });
      const request = { app_id: appId, variant_ids: [variant.variant_id], evaluators_configs: [config.id], testset_id: testset.id };
      expect(await firstCaseResult(server, request)).toEqual({ type: 'number', value: 0.75, error: null });
    } finally {
      expect(await stop(service.child)).toBe(0);
      await endpoint.close();
    }
  });
});
