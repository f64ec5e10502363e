// Shared by the benchmarks: child processes (the service, a user's endpoint) and their memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Starts a script that prints its port as its first line of output. */
export async function startProcess(script: string, env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(line)));
  });
  return { port, child };
}

export interface Service {
  baseUrl: string;
  child: ChildProcess;
  /** Peak resident memory of the service process so far, in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

/**
 * Runs Assay as `npm start` does (tsx, src/main.ts) on a fresh SQLite file in a temp dir.
 * BENCH_SERVICE_NODE_ARGS adds Node flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
 */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-bench-'));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', tsx, main], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: `file:${join(dir, 'bench.db')}`, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (listening) resolve(listening[1]);
    });
  });
  return {
    baseUrl,
    child,
    peakRssMb: () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024,
    stop: async () => {
      child.removeAllListeners('exit');
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}
