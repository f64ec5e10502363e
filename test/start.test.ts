// `npm start` on a fresh machine: the process creates and migrates its SQLite file itself, serves,
// and a second start applies nothing. Run as a real child process, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
// tsx is resolved from the project, since the process runs in a temp dir as its working directory.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const main = join(root, 'src/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'assay-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  url: string;
  messages: string[];
}

/** Starts `src/main.ts` with `env`; resolves once it listens, with its log messages so far. */
function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', tsx, main], {
    cwd: dir,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: string[] = [];
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
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
  const child = spawn(process.execPath, ['--import', tsx, main], {
    cwd: dir,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('starting the service', () => {
  it('creates and migrates ./data/assay.db by default, serves, and migrates nothing the second time', async () => {
    const first = await start({});
    expect(existsSync(join(dir, 'data', 'assay.db'))).toBe(true);
    expect(first.messages).toContain('applied migration 0001_init');
    const created = await fetch(`${first.url}/apps`, { method: 'POST', body: JSON.stringify({ app_name: 'kept' }) });
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
});
