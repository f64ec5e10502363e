// The JavaScript sandbox of auto_custom_code_run (docs/evaluators.md): user code runs in QuickJS
// compiled to WebAssembly (quickjs-emscripten), never in Node's own engine (node:vm shares the
// host's realm and is no sandbox).
//
// Layers, each enough on its own for one threat:
// - Capabilities: the guest is a bare QuickJS context. No module loader, no host function is
//   injected (no require, import, fs, net, fetch, process, timers, env); the four arguments go in
//   as JSON texts and are parsed inside. globalThis is QuickJS's own, so no prototype chain leads
//   back to the host.
// - Isolation: a fresh WebAssembly instance (its own linear memory) per call, dropped afterwards,
//   so nothing is shared between calls (about 10 ms per call).
// - Limits per call: QuickJS's memory limit (SANDBOX_LIMITS.memoryBytes) and stack limit, and a
//   limit of CPU time checked by its interrupt handler (timeoutMs of the worker thread's own CPU
//   time, so a busy machine does not use it up: docs/evaluators.md#time-limits).
// - Containment: calls run on worker threads (SANDBOX_WORKERS of them), so a guest never blocks
//   the service's event loop; a worker whose thread has used its CPU time plus a grace period
//   without answering (an engine stuck where the interrupt handler is not consulted), or that has
//   not answered within the pool's wall-clock backstop, is terminated and replaced, and its V8
//   heap is capped by resourceLimits.
import { Worker } from 'node:worker_threads';
import { type HostEvents, type SandboxHost, type SandboxLimits, type SandboxOutcome, SandboxPool } from './pool.js';

export type { SandboxFailureKind, SandboxLimits, SandboxOutcome } from './pool.js';

export const SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 2_000, memoryBytes: 16 * 1024 * 1024, stackBytes: 512 * 1024 };

/** Worker threads running sandboxed calls at once (the machine has two cores; runs share it with the service). */
export const SANDBOX_WORKERS = 2;

/** CPU time past the limit after which a worker that has not answered is killed. */
const GRACE_MS = 1_000;

const workerUrl = new URL('./quickjs-worker.mjs', import.meta.url);

function launchWorker(events: HostEvents): SandboxHost {
  const worker = new Worker(workerUrl, {
    // The guest's memory is QuickJS's (WebAssembly); this caps the worker's own JavaScript heap.
    resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    // Nothing of the host's environment reaches the worker (the guest could not read it anyway).
    env: {},
    stdout: true,
    stderr: true,
  });
  worker.on('message', (message: { id: number; outcome: SandboxOutcome }) => events.reply(message));
  worker.on('error', (error: Error) => events.ended({ ok: false, kind: /memory/i.test(error.message) ? 'memory' : 'crash', message: error.message }));
  worker.on('exit', () => events.ended({ ok: false, kind: 'crash', message: 'the sandbox stopped unexpectedly' }));
  // A worker thread queues messages until its script listens, so it takes jobs at once.
  queueMicrotask(() => events.ready());
  return {
    post: (job) => worker.postMessage(job),
    stop: () => worker.terminate(),
    // The worker thread's CPU time (Node 24); it rejects once the worker has ended.
    cpuTimeMs: () =>
      typeof worker.cpuUsage === 'function'
        ? worker.cpuUsage().then(
            ({ user, system }) => (user + system) / 1000,
            () => undefined,
          )
        : Promise.resolve(undefined),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}

// The process's, not a service's (docs/architecture.md#state-lives-in-services): the workers are
// sized to the machine's cores, so every service in the process shares them; they hold no
// service's data and are unref'd, so nothing needs them closed with a service.
let pool: SandboxPool | undefined;

/**
 * Runs `code`, which must define `evaluate(...)`, calling it with `args` (each a JSON-serialisable
 * value), and answers the number it returned or why it failed. Rejects only when `signal` aborts.
 */
export function runJavaScript(code: string, args: unknown[], limits: SandboxLimits = SANDBOX_LIMITS, signal?: AbortSignal): Promise<SandboxOutcome> {
  pool ??= new SandboxPool({ size: SANDBOX_WORKERS, launch: launchWorker, graceMs: GRACE_MS, warm: false });
  return pool.run(
    code,
    args.map((arg) => JSON.stringify(arg ?? null)),
    limits,
    signal,
  );
}

/** Stops the sandbox's workers (they are unref'd, so this is only needed to free them early). */
export async function closeSandbox(): Promise<void> {
  await pool?.close();
}
