// Calls to other services (user endpoints, model providers) retried as
// docs/evaluations.md#rate_limit says: a transient failure (network error, timeout, 408, 429, 5xx)
// is tried again up to `retries` times, `delayMs` apart, and a `Retry-After` header wins over that
// delay. Anything else fails at once.
import pRetry, { AbortError } from 'p-retry';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** A failure worth trying again; `retryAfterMs` when the peer said how long to wait. */
export class TransientError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A failure trying again would not cure (4xx, a reply that makes no sense). */
export class PermanentError extends Error {}

/** The longest wait a Retry-After may impose: the longest `retry_delay` a user may ask for. */
export const MAX_RETRY_WAIT_MS = 3600 * 1000;

export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryOptions {
  retries: number;
  delayMs: number;
  signal?: AbortSignal;
  /** Called before each wait, e.g. to count attempts. */
  onRetry?: (error: TransientError, attempt: number) => void;
}

/**
 * Runs `attempt` until it succeeds, fails permanently, or the retries are spent. The first attempt
 * runs bare, without p-retry: nearly every call succeeds at once, and for an in-process scorer
 * p-retry's set-up per call costs more than the scoring. Only a transient failure hands over to
 * p-retry, which starts from that failure as if it had made the attempt itself.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  options.signal?.throwIfAborted();
  let value: T;
  try {
    value = await attempt(1);
  } catch (error) {
    if (!(error instanceof TransientError) || options.retries === 0) throw error;
    return retry(error, attempt, options);
  }
  options.signal?.throwIfAborted();
  return value;
}

/** Attempts 2 onwards, after `first` failed: p-retry replays that failure as its own first attempt. */
function retry<T>(first: TransientError, attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  return pRetry(
    async (attemptNumber) => {
      if (attemptNumber === 1) throw first;
      try {
        return await attempt(attemptNumber);
      } catch (error) {
        // Only TransientErrors are retried; AbortError makes p-retry give up at once.
        if (error instanceof TransientError) throw error;
        throw new AbortError(error as Error);
      }
    },
    {
      retries: options.retries,
      // p-retry's own backoff is off: the wait happens below, so Retry-After can replace it.
      minTimeout: 0,
      factor: 1,
      randomize: false,
      signal: options.signal,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft <= 0 || !(error instanceof TransientError)) return;
        options.onRetry?.(error, attemptNumber);
        await sleep(Math.min(error.retryAfterMs ?? options.delayMs, MAX_RETRY_WAIT_MS), undefined, { signal: options.signal });
      },
    },
  );
}

/**
 * What stops one outgoing call when its time is up or its caller aborts: an AbortSignal's
 * `aborted`, `reason` and 'abort' event on an EventEmitter, which undici's request (postJson)
 * takes as its signal. On Node 20 an AbortController per call costs several times as much (its
 * signal is an EventTarget made transferable), and every test case makes at least one call.
 */
export class Deadline extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** What may stop an outgoing call: a caller's AbortSignal, or withTimeout's Deadline. */
export type CallSignal = AbortSignal | Deadline;

/**
 * Runs `call` with a signal that aborts after `timeoutMs` or when `signal` aborts. The timer and
 * the listener are removed when the call settles: `AbortSignal.any` would keep every composite
 * signal attached to a long-lived parent (a run's), which on Node 20 costs time and memory.
 */
export async function withTimeout<T>(timeoutMs: number, signal: AbortSignal | undefined, call: (signal: Deadline) => Promise<T>): Promise<T> {
  const deadline = new Deadline();
  const timer = setTimeout(() => deadline.abort(new DOMException('timed out', 'TimeoutError')), timeoutMs);
  const forward = () => deadline.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  try {
    return await call(deadline);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}

/** The limits of an outgoing call: a time limit per attempt, the retries, and the caller's signal. */
export interface CallLimits {
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  signal: AbortSignal;
}

/**
 * One outgoing call (a variant, a model provider) under `limits`: each attempt gets its own time
 * limit, a timed-out attempt is a TransientError saying `timeoutMessage`, and transient failures
 * are retried. `call` gets the attempt's signal and number (from 1).
 */
export function callWithRetries<T>(limits: CallLimits, timeoutMessage: string, call: (signal: Deadline, attempt: number) => Promise<T>): Promise<T> {
  return withRetries(
    (attempt) =>
      withTimeout(limits.timeoutMs, limits.signal, async (signal) => {
        try {
          return await call(signal, attempt);
        } catch (error) {
          if (signal.aborted && !limits.signal.aborted) throw new TransientError(timeoutMessage);
          throw error;
        }
      }),
    { retries: limits.retries, delayMs: limits.retryDelayMs, signal: limits.signal },
  );
}
