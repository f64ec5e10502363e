// The pool both code sandboxes share (docs/evaluators.md#custom-code): a few hosts (worker threads
// for JavaScript, child processes for Python) each running one call at a time, a queue, a time
// limit per call after which the host is killed and replaced, and cancellation. What runs inside a
// host is the sandbox's own (javascript.ts, python.ts).
//
// The time limit is CPU time (docs/evaluators.md#time-limits): a busy machine slows a call down
// without using up its time, and a call cannot outrun another limit because the machine is slow.
// A call that has not finished after WALL_CLOCK_FACTOR times its limit of wall-clock time is
// stopped all the same (it waits on something, or the machine is too busy to run it).

export interface SandboxLimits {
  /** CPU time allowed per call, in ms. */
  timeoutMs: number;
  /** Memory the guest may allocate, in bytes. */
  memoryBytes: number;
  /** The guest's stack, in bytes (deep recursion ends with a RangeError-like InternalError). */
  stackBytes: number;
}

/** What the pool itself enforces per call; the rest of a sandbox's limits is its own. */
export interface CallLimits {
  timeoutMs: number;
}

/** Wall-clock time a call may take, as a multiple of its CPU-time limit (`busy` past it). */
export const WALL_CLOCK_FACTOR = 10;

/** How often a running call's CPU time is read, in ms. */
const CPU_CHECK_MS = 50;

/** `timeout`: the call used its CPU time; `busy`: it did not finish within WALL_CLOCK_FACTOR times that in wall-clock time. */
export type SandboxFailureKind = 'syntax' | 'exception' | 'timeout' | 'busy' | 'memory' | 'no_function' | 'not_a_number' | 'pending' | 'crash';

export type SandboxFailure = { ok: false; kind: SandboxFailureKind; message?: string; line?: number | null };

export type SandboxOutcome = { ok: true; value: number } | SandboxFailure;

/** What a host sends back: the outcome of job `id`; `recycle` when the host ends after it. */
export interface HostReply {
  id: number;
  outcome: SandboxOutcome;
  recycle?: boolean;
}

export interface HostEvents {
  /** The host takes jobs from now on. */
  ready(): void;
  reply(reply: HostReply): void;
  /** The host failed or ended; its job (if any) gets `failure`. */
  ended(failure: SandboxFailure): void;
}

/** One worker thread or process, as the pool drives it. */
export interface SandboxHost {
  post(job: { id: number; code: string; args: string[]; limits: CallLimits }): void;
  /** Ends the host at once. */
  stop(): Promise<unknown>;
  /** CPU time the host has used since it started, in ms; undefined when the platform does not tell (the wall clock counts then). */
  cpuTimeMs(): Promise<number | undefined>;
  /** Whether the host keeps the service's process alive (only while it runs a job). */
  ref(): void;
  unref(): void;
}

export interface PoolOptions {
  size: number;
  /** Starts a host; it calls `events` as things happen. */
  launch(events: HostEvents): SandboxHost;
  /** CPU time past the limit before a host that has not answered is killed. */
  graceMs: number;
  /** Keep `size` hosts started ahead of calls (their start is slow), replacing each that ends. */
  warm: boolean;
}

interface Job {
  id: number;
  code: string;
  args: string[];
  limits: CallLimits;
  resolve: (outcome: SandboxOutcome) => void;
  reject: (error: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  host: SandboxHost;
  ready: boolean;
  job: Job | null;
  /** The CPU-time check and the wall-clock backstop of the running job. */
  timers: NodeJS.Timeout[];
}

export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly options: PoolOptions) {}

  run(code: string, args: string[], limits: CallLimits, signal?: AbortSignal): Promise<SandboxOutcome> {
    return new Promise<SandboxOutcome>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const job: Job = { id: this.nextId++, code, args, limits, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      if (this.options.warm) this.fill();
      this.dispatch();
    });
  }

  /** Starts hosts up to the pool's size (a warm pool keeps them ready ahead of calls). */
  fill(): void {
    while (this.slots.length < this.options.size) this.spawn();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.ready && candidate.job === null);
      if (!slot && !this.options.warm && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot?.ready) return;
      const job = this.queue.shift()!;
      slot.job = job;
      this.watch(slot, job);
      slot.host.ref();
      slot.host.post({ id: job.id, code: job.code, args: job.args, limits: job.limits });
    }
  }

  /**
   * Kills the host of `job` once it has used the job's CPU time (plus grace), or once WALL_CLOCK_FACTOR
   * times that has passed. Both count from the hand-over to a ready host: a host's start is not the call's time.
   */
  private watch(slot: Slot, job: Job): void {
    const allowedMs = job.limits.timeoutMs + this.options.graceMs;
    const startedAt = performance.now();
    const startCpu = slot.host.cpuTimeMs();
    const check = async () => {
      const [from, now] = await Promise.all([startCpu, slot.host.cpuTimeMs()]);
      if (slot.job !== job) return;
      const usedMs = from === undefined || now === undefined ? performance.now() - startedAt : now - from;
      if (usedMs > allowedMs) this.kill(slot, { ok: false, kind: 'timeout' });
    };
    const cpuCheck = setInterval(() => void check(), CPU_CHECK_MS);
    const backstop = setTimeout(() => this.kill(slot, { ok: false, kind: 'busy' }), job.limits.timeoutMs * WALL_CLOCK_FACTOR + this.options.graceMs);
    slot.timers = [cpuCheck, backstop];
    for (const timer of slot.timers) timer.unref();
  }

  private spawn(): Slot {
    const slot = { ready: false, job: null, timers: [] } as unknown as Slot;
    slot.host = this.options.launch({
      ready: () => {
        slot.ready = true;
        this.dispatch();
      },
      reply: (reply) => {
        if (slot.job?.id !== reply.id) return;
        if (reply.recycle) this.retire(slot, reply.outcome);
        else this.settle(slot, reply.outcome);
      },
      ended: (failure) => (slot.ready ? this.retire(slot, failure) : this.failStart(slot, failure)),
    });
    slot.host.unref();
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): Job | null {
    const job = slot.job;
    slot.job = null;
    for (const timer of slot.timers.splice(0)) clearTimeout(timer);
    if (job?.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    return job;
  }

  private settle(slot: Slot, outcome: SandboxOutcome): void {
    const job = this.finish(slot);
    slot.host.unref();
    job?.resolve(outcome);
    this.dispatch();
  }

  /** Drops a slot whose host ended (or is ending); a warm pool starts its replacement. */
  private drop(slot: Slot): boolean {
    const index = this.slots.indexOf(slot);
    if (index === -1) return false;
    this.slots.splice(index, 1);
    return true;
  }

  /** A host that failed, exited or asked to be recycled: its job gets `outcome`. */
  private retire(slot: Slot, outcome: SandboxOutcome): void {
    if (!this.drop(slot)) return;
    const job = this.finish(slot);
    void slot.host.stop();
    job?.resolve(outcome);
    if (this.options.warm) this.fill();
    this.dispatch();
  }

  /**
   * A host that ended before it was ready: the waiting calls fail with its reason rather than wait
   * for replacements that would fail alike; the next call tries again.
   */
  private failStart(slot: Slot, failure: SandboxFailure): void {
    if (!this.drop(slot)) return;
    void slot.host.stop();
    for (const waiting of this.queue.splice(0)) {
      if (waiting.onAbort) waiting.signal?.removeEventListener('abort', waiting.onAbort);
      waiting.resolve({ ok: false, kind: 'crash', message: `the sandbox could not start: ${failure.message ?? failure.kind}` });
    }
  }

  /** Ends a host whose job overran (or was cancelled). */
  private kill(slot: Slot, outcome: SandboxOutcome | null, error?: Error): void {
    this.drop(slot);
    const job = this.finish(slot);
    void slot.host.stop();
    if (job) {
      if (outcome) job.resolve(outcome);
      else job.reject(error ?? new Error('cancelled'));
    }
    if (this.options.warm) this.fill();
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

  /** Ends every host (tests, shutdown); later calls start new ones. */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.host.stop()));
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('cancelled');
}
