// The sandbox pool with hosts that cannot start (a real child process that exits at once): the
// waiting calls fail with the reason instead of waiting for replacements that fail alike, and a
// later call tries again.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type HostEvents, type SandboxHost, SandboxPool } from './pool.js';

describe('SandboxPool', () => {
  it('fails the waiting calls when its hosts cannot start, and tries again on the next call', async () => {
    let launched = 0;
    const launch = (events: HostEvents): SandboxHost => {
      launched += 1;
      const child = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
      child.on('exit', (code) => events.ended({ ok: false, kind: 'crash', message: `exit code ${code}` }));
      return {
        post: () => undefined,
        stop: () => Promise.resolve(child.kill()),
        cpuTimeMs: () => Promise.resolve(undefined),
        ref: () => child.ref(),
        unref: () => child.unref(),
      };
    };
    const pool = new SandboxPool({ size: 2, launch, graceMs: 10, warm: true });
    const calls = [pool.run('code', [], { timeoutMs: 1_000 }), pool.run('code', [], { timeoutMs: 1_000 })];
    expect(await Promise.all(calls)).toEqual([
      { ok: false, kind: 'crash', message: 'the sandbox could not start: exit code 3' },
      { ok: false, kind: 'crash', message: 'the sandbox could not start: exit code 3' },
    ]);
    const launchedFirst = launched;
    expect(launchedFirst).toBe(2);
    expect(await pool.run('code', [], { timeoutMs: 1_000 })).toMatchObject({ ok: false, message: 'the sandbox could not start: exit code 3' });
    expect(launched).toBeGreaterThan(launchedFirst);
    await pool.close();
  });
});
