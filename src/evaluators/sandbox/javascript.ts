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
//   deadline checked by its interrupt handler (timeoutMs of running time; the call runs alone on
//   its worker thread, so wall time there is its CPU time).
// - Containment: calls run on worker threads (SANDBOX_WORKERS of them), so a guest never blocks
//   the service's event loop; a worker that does not answer within the deadline plus a grace
//   period (an engine stuck where the interrupt handler is not consulted) is terminated and
//   replaced, and its V8 heap is capped by resourceLimits.
import { Worker } from 'node:worker_threads';

export interface SandboxLimits {
  /** Running time allowed per call, in ms. */
  timeoutMs: number;
  /** Memory the guest may allocate, in bytes. */
  memoryBytes: number;
  /** The guest's stack, in bytes (deep recursion ends with a RangeError-like InternalError). */
  stackBytes: number;
}

export const SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 2_000, memoryBytes: 16 * 1024 * 1024, stackBytes: 512 * 1024 };

/** Worker threads running sandboxed calls at once (the machine has two cores; runs share it with the service). */
export const SANDBOX_WORKERS = 2;

/** Time past the deadline after which a worker that has not answered is killed. */
const GRACE_MS = 1_000;

export type SandboxFailureKind = 'syntax' | 'exception' | 'timeout' | 'memory' | 'no_function' | 'not_a_number' | 'pending' | 'crash';

export type SandboxOutcome = { ok: true; value: number } | { ok: false; kind: SandboxFailureKind; message?: string; line?: number | null };

interface Job {
  id: number;
  code: string;
  args: string[];
  limits: SandboxLimits;
  resolve: (outcome: SandboxOutcome) => void;
  reject: (error: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

const workerUrl = new URL('./quickjs-worker.mjs', import.meta.url);

class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly size: number) {}

  run(code: string, args: string[], limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxOutcome> {
    return new Promise<SandboxOutcome>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const job: Job = { id: this.nextId++, code, args, limits, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.job === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => this.kill(slot, { ok: false, kind: 'timeout' }), job.limits.timeoutMs + GRACE_MS);
      slot.timer.unref();
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, code: job.code, args: job.args, limits: job.limits });
    }
  }

  private spawn(): Slot {
    const worker = new Worker(workerUrl, {
      // The guest's memory is QuickJS's (WebAssembly); this caps the worker's own JavaScript heap.
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      // Nothing of the host's environment reaches the worker (the guest could not read it anyway).
      env: {},
      stdout: true,
      stderr: true,
    });
    const slot: Slot = { worker, job: null, timer: null };
    worker.unref();
    worker.on('message', (message: { id: number; outcome: SandboxOutcome }) => {
      if (slot.job?.id !== message.id) return;
      this.settle(slot, message.outcome);
    });
    worker.on('error', (error: Error) => this.retire(slot, { ok: false, kind: /memory/i.test(error.message) ? 'memory' : 'crash', message: error.message }));
    worker.on('exit', () => this.retire(slot, { ok: false, kind: 'crash', message: 'the sandbox stopped unexpectedly' }));
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): Job | null {
    const job = slot.job;
    slot.job = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (job?.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    return job;
  }

  private settle(slot: Slot, outcome: SandboxOutcome): void {
    const job = this.finish(slot);
    slot.worker.unref();
    job?.resolve(outcome);
    this.dispatch();
  }

  /** A worker that failed or exited: its job gets `outcome`, and the slot is freed for a new worker. */
  private retire(slot: Slot, outcome: SandboxOutcome): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const job = this.finish(slot);
    job?.resolve(outcome);
    this.dispatch();
  }

  /** Terminates a worker whose job overran (or was cancelled). */
  private kill(slot: Slot, outcome: SandboxOutcome | null, error?: Error): void {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    const job = this.finish(slot);
    void slot.worker.terminate();
    if (job) {
      if (outcome) job.resolve(outcome);
      else job.reject(error ?? new Error('cancelled'));
    }
    this.dispatch();
  }

  private abort(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      job.reject(abortError(job.signal!));
      return;
    }
    const slot = this.slots.find((candidate) => candidate.job === job);
    if (slot) this.kill(slot, null, abortError(job.signal!));
  }

  /** Ends every worker (tests, shutdown); later calls start new ones. */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('cancelled');
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
  pool ??= new SandboxPool(SANDBOX_WORKERS);
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
