// The Python sandbox's time limit is the process's CPU time (docs/evaluators.md#time-limits): an
// endless loop is stopped at it, while code that needs part of it still finishes when other
// processes keep every core busy and the call takes longer than its limit in wall-clock time; a
// memory bomb on such a machine reaches the memory limit rather than the time limit. Real child
// processes, one pool for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePython, PYTHON_LIMITS, runPython } from './python.js';
import { WALL_CLOCK_FACTOR } from './pool.js';
import { keepCoresBusy } from '../../../test/helpers/cpu-load.js';

const py = (...lines: string[]) => ['def evaluate(app_params, inputs, output, correct_answer):', ...lines.map((line) => `    ${line}`)].join('\n');
const args = [{}, {}, null, null];

/** A loop of `rounds` iterations of arithmetic: CPU work and nothing else. */
const work = (rounds: number) => py('total = 0', `for n in range(${rounds}):`, '    total += n % 7', 'return 1');

beforeAll(async () => {
  // The pool's processes start with the first call (1-2 s each, more on a busy machine).
  expect(await runPython(py('return 1'), args)).toEqual({ ok: true, value: 1 });
}, 120_000);

afterAll(async () => {
  await closePython();
});

describe('the Python time limit', () => {
  it('stops an endless loop once it has used its CPU time, within the wall-clock backstop', async () => {
    const limits = { ...PYTHON_LIMITS, timeoutMs: 300 };
    const started = performance.now();
    expect(await runPython(py('while True:', '    pass'), args, limits)).toEqual({ ok: false, kind: 'timeout' });
    expect(performance.now() - started).toBeLessThan(limits.timeoutMs * WALL_CLOCK_FACTOR + 500);
    expect(await runPython(py('return 2'), args)).toEqual({ ok: true, value: 2 });
  });

  it('lets code that needs part of its CPU time finish while other processes keep every core busy', { timeout: 60_000 }, async () => {
    const limits = PYTHON_LIMITS;
    // Rounds that take about a quarter of the limit, measured here (an overestimate of their CPU
    // time: the call's own costs count too). The sandbox's processes run at a lower priority
    // than the loops (python.ts), so the call takes longer than its limit in wall-clock time.
    const started = performance.now();
    expect(await runPython(work(200_000), args, limits)).toEqual({ ok: true, value: 1 });
    const rounds = Math.floor((200_000 * limits.timeoutMs) / 4 / (performance.now() - started));
    const stop = keepCoresBusy();
    try {
      expect(await runPython(work(rounds), args, limits)).toEqual({ ok: true, value: 1 });
      expect(await runPython(py('blocks = []', 'while True:', '    blocks.append(bytearray(1024 * 1024))'), args, limits)).toEqual({
        ok: false,
        kind: 'memory',
      });
    } finally {
      await stop();
    }
  });
});
