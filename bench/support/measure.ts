// Shared by the benchmarks: child processes (the service, a user's endpoint) and their memory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migratePostgres, migrateSqlite } from '../../src/shared/migrate.js';
import { createTestDatabase } from '../../test/helpers/server.js';

/** Benchmarks run on PostgreSQL when TEST_DATABASE_URL names a server (a fresh database each), else on SQLite. */
export { onPostgres } from '../../test/helpers/server.js';

/** Starts a script that prints its port as its first line of output. */
export async function startProcess(script: string, env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(line)));
  });
  return { port, child };
}

export interface Service {
  baseUrl: string;
  child: ChildProcess;
  /** The service's DATABASE_URL. */
  databaseUrl: string;
  /** Peak resident memory of the service process so far, in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
let built = false;

/**
 * What `npm start` runs, read from package.json: its prestart builds (`npm run build`, once per
 * benchmark process), then the start script's `[VAR=value …] exec node <flags> dist/main.js` gives the
 * environment and the arguments.
 */
/** `npm run build`, once per benchmark process. */
export function buildService(): void {
  if (built) return;
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build exited with ${build.status}`);
  built = true;
}

function startCommand(): { env: Record<string, string>; args: string[] } {
  buildService();
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = scripts.start.split(' ').filter(Boolean);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  if (words[0] === 'exec') words.shift();
  const [command, ...args] = words;
  if (command !== 'node') throw new Error(`the start script is not "[VAR=value …] [exec] node …": ${scripts.start}`);
  return { env, args };
}

/**
 * Runs Assay as `npm start` does (the build, then node dist/main.js with the start script's flags,
 * in the project's directory) on a fresh database: a SQLite file in a temp dir, or a database of
 * its own on TEST_DATABASE_URL's server, dropped when it stops.
 * BENCH_SERVICE_NODE_ARGS adds Node flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof". `dist`
 * runs another build of the service (bench/support/baseline.ts) in dist/'s place.
 */
export async function startService(env: Record<string, string> = {}, dist?: string): Promise<Service> {
  const start = startCommand();
  if (dist) start.args = start.args.map((arg) => (arg === 'dist/main.js' ? join(dist, 'main.js') : arg));
  const dir = mkdtempSync(join(tmpdir(), 'assay-bench-'));
  const database = await createTestDatabase(dir);
  const serviceEnv: NodeJS.ProcessEnv = { ...process.env, ...start.env, PORT: '0', LOG_LEVEL: 'info', ...database.env, ...env };
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...start.args], {
    cwd: root,
    env: serviceEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (listening) resolve(listening[1]);
    });
  });
  return {
    baseUrl,
    child,
    databaseUrl: serviceEnv.DATABASE_URL!,
    peakRssMb: () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024,
    stop: async () => {
      child.removeAllListeners('exit');
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A JSON caller of a service's API at `baseUrl`: it throws on an answer that is not 2xx. */
export function serviceCaller(baseUrl: string) {
  return async <Answer>(method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Answer;
  };
}

export interface ClientRun {
  seconds: number;
  requests: number;
  retries: number;
  bytes: number;
  p50: number;
  p99: number;
  max: number;
}

const otlpClient = fileURLToPath(new URL('./otlp-client.ts', import.meta.url));

/** Runs otlp-client.ts in its own process against `url`; `env` reaches it (BENCH_AUTHORIZATION). */
export function runOtlpClient(
  url: string,
  run: { spans: number; batch: number; trace: number; concurrency: number },
  env: Record<string, string> = {},
): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const args = ['--import', 'tsx', otlpClient, url, String(run.spans), String(run.batch), String(run.trace), String(run.concurrency)];
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ClientRun) : reject(new Error(`client exited ${code}`))));
  });
}

export function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * An empty database of the service's schema in a temp dir, for a raw better-sqlite3 baseline:
 * migrated as the service migrates it, WAL, commits not waiting for the disk (as the service's
 * connection; src/shared/wal-sync.ts).
 */
export function rawDatabase(): { db: Database.Database; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'assay-bench-raw-'));
  const file = join(dir, 'raw.db');
  migrateSqlite(file);
  const db = new Database(file);
  db.pragma('synchronous = NORMAL');
  return {
    db,
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An empty PostgreSQL database of the service's schema on TEST_DATABASE_URL's server, for a raw node-postgres baseline. */
export async function rawPostgres(): Promise<{ client: pg.Client; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-bench-raw-'));
  const database = await createTestDatabase(dir);
  await migratePostgres(database.env.DATABASE_URL);
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  return {
    client,
    close: async () => {
      await client.end();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The nearest-rank percentile `p` (0–1) of ascending `sorted` times. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

/** Milliseconds of each of `runs` calls of `once`, one at a time, ascending. */
export async function timed(runs: number, once: () => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}
