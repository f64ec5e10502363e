// The JavaScript sandbox's time limit is its worker thread's CPU time, checked by QuickJS's
// interrupt handler (docs/evaluators.md#time-limits): an endless loop is stopped at it, while
// code that needs part of it still finishes when other processes keep every core busy.
import { afterAll, describe, expect, it } from 'vitest';
import { closeSandbox, runJavaScript, SANDBOX_LIMITS } from './javascript.js';
import { WALL_CLOCK_FACTOR } from './pool.js';
import { keepCoresBusy } from '../../../test/helpers/cpu-load.js';

const args = [{}, {}, null, null];

/** A loop of `rounds` iterations of arithmetic: CPU work and nothing else. */
const work = (rounds: number) => `function evaluate() { let total = 0; for (let n = 0; n < ${rounds}; n++) total += n % 7; return 1 }`;

afterAll(async () => {
  await closeSandbox();
});

describe('the JavaScript time limit', () => {
  it('stops an endless loop once it has used its CPU time, within the wall-clock backstop', async () => {
    const limits = { ...SANDBOX_LIMITS, timeoutMs: 300 };
    const started = performance.now();
    expect(await runJavaScript('function evaluate() { for (;;) {} }', args, limits)).toEqual({ ok: false, kind: 'timeout' });
    expect(performance.now() - started).toBeLessThan(limits.timeoutMs * WALL_CLOCK_FACTOR + 1_000);
  });

  it('lets code that needs part of its CPU time finish while other processes keep every core busy', { timeout: 60_000 }, async () => {
    const limits = SANDBOX_LIMITS;
    // Rounds that take about three quarters of the limit, measured here (an overestimate of their
    // CPU time: the call's own costs count too). Three loops per core leave the worker thread a
    // fraction of a core, so the call takes longer than its limit in wall-clock time.
    expect(await runJavaScript(work(1_000), args, limits)).toEqual({ ok: true, value: 1 });
    const started = performance.now();
    expect(await runJavaScript(work(200_000), args, limits)).toEqual({ ok: true, value: 1 });
    const rounds = Math.floor((200_000 * limits.timeoutMs * 0.75) / (performance.now() - started));
    const stop = keepCoresBusy(3);
    try {
      expect(await runJavaScript(work(rounds), args, limits)).toEqual({ ok: true, value: 1 });
    } finally {
      await stop();
    }
  });
});
