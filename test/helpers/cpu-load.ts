// Another process keeping the machine's cores busy, as a loaded machine is: the code sandboxes'
// time limits are CPU time, so a call slowed down by it must still finish (docs/evaluators.md#time-limits).
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** The most looping processes started: enough to keep a small machine's cores busy without swamping a large one. */
const MAX_LOOPS = 8;

/** Starts `perCore` endless loops per core (at most MAX_LOOPS), each its own process; the answer stops them. */
export function keepCoresBusy(perCore = 1): () => Promise<void> {
  const loops = Array.from({ length: Math.min(availableParallelism() * perCore, MAX_LOOPS) }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return async () => {
    await Promise.all(
      loops.map(
        (loop) =>
          new Promise<void>((resolve) => {
            if (loop.exitCode !== null || loop.signalCode !== null) return resolve();
            loop.once('exit', () => resolve());
            loop.kill('SIGKILL');
          }),
      ),
    );
  };
}
