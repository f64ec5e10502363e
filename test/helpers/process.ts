// The real service as a child process, for tests that kill and restart it. It runs the source
// (`src/main.ts` under tsx), since tests test the source and need no build; `npm start` runs the
// compiled dist/main.js, which test/start.test.ts covers. Its log goes to stdout as JSON lines; it
// is ready once it logs its address.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, requester, type TestDatabase, type TestResponse } from './server.js';

const root = new URL('../..', import.meta.url).pathname;
// tsx is resolved from the project, since the process may run in a temp dir as its working directory.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const main = join(root, 'src/main.ts');

export interface AssayProcess {
  child: ChildProcess;
  url: string;
  /** Log messages so far. */
  messages: string[];
  /** Log lines so far, parsed (lines that are not JSON are left out). */
  lines: Record<string, unknown>[];
  stderr(): string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  graphql(query: string, variables?: Record<string, unknown>): Promise<any>;
  /** SIGKILL: no shutdown work at all, as a crash or an OOM kill. */
  kill(): Promise<void>;
  /** SIGTERM: a clean stop. */
  stop(): Promise<number | null>;
}

/** A database of the test file's own that services run as child processes share, one after another. */
export interface ServiceDatabase {
  /** Starts the service on the database (with the file's `env`); it is killed after the file's tests if still running. */
  start(): Promise<AssayProcess>;
  /** Rows of one read on a connection of its own: what a killed process left. */
  query: TestDatabase['query'];
}

/** A ServiceDatabase made before the file's tests and dropped after them, with its temp dir. */
export function useServiceDatabase(prefix: string, env: Record<string, string> = {}): ServiceDatabase {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let database: TestDatabase | undefined;
  const started: AssayProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(dir);
  });
  afterAll(async () => {
    for (const service of started) await service.kill();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    start: async () => {
      const service = await startAssayProcess(dir, { ...database!.env, ...env });
      started.push(service);
      return service;
    },
    query: (sql, params) => database!.query(sql, params),
  };
}

/** Starts `src/main.ts` with `env` in `cwd`; resolves once it listens. */
export function startAssayProcess(cwd: string, env: Record<string, string>, timeoutMs = 20_000): Promise<AssayProcess> {
  const child = spawn(process.execPath, ['--import', tsx, main], {
    cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: string[] = [];
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    const onEarlyExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}: ${stderr}`));
    };
    child.once('exit', onEarlyExit);
    createInterface({ input: child.stdout }).on('line', (line) => {
      let msg: string;
      try {
        const parsed = JSON.parse(line) as { msg: string };
        lines.push(parsed);
        msg = parsed.msg;
      } catch {
        msg = line;
      }
      messages.push(msg);
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(msg);
      if (!listening) return;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      const url = listening[1];
      const request = requester(url);
      resolve({
        child,
        url,
        messages,
        lines,
        stderr: () => stderr,
        request,
        graphql: async (query, variables) => (await request('POST', '/graphql', { query, variables })).body,
        kill: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
          child.kill('SIGTERM');
          await exited;
          return child.exitCode;
        },
      });
    });
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const run = promisify(execFile);

/** `npm run assay -- <args>` (src/cli.ts) with `env`: its exit code and output, a failure included. */
export async function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '-s', 'assay', '--', ...args], { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
