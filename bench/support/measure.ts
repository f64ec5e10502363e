// Shared by the benchmarks: a child process serving on a port it prints, and peak memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export async function startProcess(script: string, env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(line)));
  });
  return { port, child };
}

/** Peak resident memory of this process so far, in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}
