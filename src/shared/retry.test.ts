// withRetries and withTimeout on their own: the first attempt runs without p-retry, and a
// transient failure of it is retried just as the later ones are (count, onRetry, delay,
// Retry-After, the caller's abort); a timed call gets a Deadline that the timer or the caller ends.
import { describe, expect, it } from 'vitest';
import { PermanentError, TransientError, withRetries, withTimeout } from './retry.js';

/** An attempt that fails with `failures` in turn, then answers its attempt number. */
function scripted(failures: Error[]) {
  const calls: number[] = [];
  const attempt = (attemptNumber: number) => {
    calls.push(attemptNumber);
    const failure = failures[calls.length - 1];
    if (failure) return Promise.reject(failure);
    return Promise.resolve(attemptNumber);
  };
  return { attempt, calls };
}

describe('withRetries', () => {
  it('answers the first attempt when it succeeds', async () => {
    const { attempt, calls } = scripted([]);
    expect(await withRetries(attempt, { retries: 2, delayMs: 0 })).toBe(1);
    expect(calls).toEqual([1]);
  });

  it('retries transient failures up to `retries` times, numbering attempts and calling onRetry before each wait', async () => {
    const { attempt, calls } = scripted([new TransientError('one'), new TransientError('two')]);
    const retried: [string, number][] = [];
    const answer = await withRetries(attempt, { retries: 2, delayMs: 0, onRetry: (error, n) => retried.push([error.message, n]) });
    expect(answer).toBe(3);
    expect(calls).toEqual([1, 2, 3]);
    expect(retried).toEqual([
      ['one', 1],
      ['two', 2],
    ]);
  });

  it('throws the last transient failure once the retries are spent, and a permanent one at once', async () => {
    const spent = scripted([new TransientError('a'), new TransientError('b'), new TransientError('c')]);
    await expect(withRetries(spent.attempt, { retries: 1, delayMs: 0 })).rejects.toThrow('b');
    expect(spent.calls).toEqual([1, 2]);
    const none = scripted([new TransientError('only')]);
    await expect(withRetries(none.attempt, { retries: 0, delayMs: 0 })).rejects.toThrow('only');
    expect(none.calls).toEqual([1]);
    for (const failures of [[new PermanentError('bad')], [new TransientError('x'), new PermanentError('bad')]]) {
      const permanent = scripted(failures);
      const error = await withRetries(permanent.attempt, { retries: 3, delayMs: 0 }).catch((e: unknown) => e);
      expect(error).toBe(failures.at(-1));
      expect(permanent.calls).toHaveLength(failures.length);
    }
  });

  it('waits delayMs between attempts, or what Retry-After said', async () => {
    const gapAfter = async (failure: TransientError, delayMs: number) => {
      const at: number[] = [];
      await withRetries(
        () => {
          at.push(performance.now());
          return at.length === 1 ? Promise.reject(failure) : Promise.resolve();
        },
        { retries: 1, delayMs },
      );
      return at[1] - at[0];
    };
    expect(await gapAfter(new TransientError('busy'), 120)).toBeGreaterThanOrEqual(110);
    expect(await gapAfter(new TransientError('busy', 0), 5_000)).toBeLessThan(1_000);
    expect(await gapAfter(new TransientError('slow down', 120), 0)).toBeGreaterThanOrEqual(110);
  });

  it("stops when the caller's signal aborts: before the first attempt, or during a wait", async () => {
    const aborted = AbortSignal.abort(new Error('cancelled'));
    const before = scripted([]);
    await expect(withRetries(before.attempt, { retries: 1, delayMs: 0, signal: aborted })).rejects.toThrow('cancelled');
    expect(before.calls).toEqual([]);

    const controller = new AbortController();
    const waiting = scripted([new TransientError('busy')]);
    const run = withRetries(waiting.attempt, { retries: 1, delayMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled')), 20);
    await expect(run).rejects.toThrow();
    expect(waiting.calls).toEqual([1]);
  });
});

describe('withTimeout', () => {
  it('ends the Deadline when the time is up, with a TimeoutError, and not before', async () => {
    const reason = await withTimeout(30, undefined, (deadline) => new Promise((resolve) => deadline.once('abort', () => resolve(deadline.reason))));
    expect(reason).toMatchObject({ name: 'TimeoutError' });
    expect(await withTimeout(1_000, undefined, (deadline) => Promise.resolve(deadline.aborted))).toBe(false);
  });

  it("ends the Deadline with the caller's reason when the caller aborts, and lets go of the caller's signal", async () => {
    const controller = new AbortController();
    const cancelled = new Error('cancelled');
    const seen = withTimeout(60_000, controller.signal, (deadline) => new Promise((resolve) => deadline.once('abort', () => resolve(deadline.reason))));
    controller.abort(cancelled);
    expect(await seen).toBe(cancelled);
    expect(await withTimeout(60_000, AbortSignal.abort(cancelled), (deadline) => Promise.resolve([deadline.aborted, deadline.reason]))).toEqual([
      true,
      cancelled,
    ]);
  });
});
