// auto_custom_code_run in its QuickJS sandbox: the four arguments, async code, every failure as a
// clear error result, and escape attempts (files, sockets, process.env, host globals, endless
// loops, unbounded allocation) that each end in an error result while the host carries on.
import { afterAll, describe, expect, it } from 'vitest';
import { closeSandbox } from '../sandbox/javascript.js';
import { WALL_CLOCK_FACTOR } from '../sandbox/pool.js';
import { faultOf, score, valueOf } from '../../../test/helpers/scorers.js';

afterAll(async () => {
  await closeSandbox();
});

const fn = (body: string) => `function evaluate(app_params, inputs, output, correct_answer) { ${body} }`;

function run(code: string, input: { output?: unknown; testcase?: Record<string, unknown>; appParams?: Record<string, unknown> } = {}) {
  return score(
    'auto_custom_code_run',
    { code, runtime: 'javascript' },
    {
      output: input.output ?? 'Paris',
      testcase: input.testcase ?? { country: 'France', correct_answer: 'Paris' },
      appParams: input.appParams ?? { temperature: 0 },
    },
  );
}

describe('auto_custom_code_run', () => {
  it('calls evaluate(app_params, inputs, output, correct_answer) with the case and returns its number', async () => {
    expect(await valueOf('number', run(fn('return output === correct_answer ? 1 : 0')))).toBe(1);
    expect(await valueOf('number', run(fn('return JSON.stringify([app_params, inputs, output, correct_answer]).length'), { output: { a: [1] } }))).toBe(
      JSON.stringify([{ temperature: 0 }, { country: 'France', correct_answer: 'Paris' }, { a: [1] }, 'Paris']).length,
    );
    // correct_answer is null when the column is absent; console exists and does nothing.
    expect(await valueOf('number', run(fn('console.log(inputs); return correct_answer === null ? 0.25 : 1'), { testcase: { q: 1 } }))).toBe(0.25);
    expect(await valueOf('number', run('async function evaluate() { await null; return 0.5 }'))).toBe(0.5);
  });

  it('reports syntax errors, exceptions, a missing evaluate and non-numeric returns', async () => {
    expect(await faultOf(run('function evaluate( { return 1'))).toMatch(/^The code does not compile: SyntaxError: .+ \(line 1\)$/);
    expect(await faultOf(run('\n\n' + fn('throw new TypeError("no luck")')))).toBe('The code threw TypeError: no luck (line 3)');
    expect(await faultOf(run('async function evaluate() { throw new Error("later") }'))).toBe('The code threw Error: later (line 1)');
    expect(await faultOf(run('const answer = 42'))).toBe('The code defines no function evaluate(app_params, inputs, output, correct_answer)');
    expect(await faultOf(run(fn('return "0.5"')))).toBe('evaluate must return a number; it returned a string: "0.5"');
    expect(await faultOf(run(fn('return true')))).toBe('evaluate must return a number; it returned a boolean: true');
    expect(await faultOf(run(fn('return undefined')))).toMatch(/^evaluate must return a number; it returned an? (undefined|null)/);
    expect(await faultOf(run(fn('return 1 / 0')))).toBe('evaluate must return a number; it returned a non-finite number: Infinity');
    expect(await faultOf(run(fn('return new Promise(() => {})')))).toBe('evaluate returned a promise that never settled');
  });

  it.each([
    ['read a file with require', fn('return require("fs").readFileSync("/etc/passwd", "utf8").length'), "ReferenceError: 'require' is not defined"],
    [
      'import a module',
      'async function evaluate() { const fs = await import("node:fs"); return fs.readFileSync("/etc/passwd").length }',
      'could not load module',
    ],
    ['read process.env', fn('return process.env.OPENAI_API_KEY.length'), "ReferenceError: 'process' is not defined"],
    ['open a socket with fetch', 'async function evaluate() { await fetch("http://127.0.0.1:9/"); return 1 }', "ReferenceError: 'fetch' is not defined"],
    ['reach the host through the Function constructor', fn('return Function("return process")().pid'), "ReferenceError: 'process' is not defined"],
    ['reach the host through a prototype chain', fn('return ({}).constructor.constructor("return globalThis.require")()("fs") ? 1 : 0'), 'not a function'],
    ['use timers', fn('setTimeout(() => 0, 1); return 1'), "ReferenceError: 'setTimeout' is not defined"],
  ])('gives an error result to code that tries to %s', async (_, code, message) => {
    expect(await faultOf(run(code))).toContain(message);
  });

  it('lists only the standard built-ins on its globalThis', async () => {
    const code = fn(
      'const host = ["process", "require", "module", "Buffer", "fetch", "global", "WebAssembly", "setTimeout"]; return host.filter((name) => name in globalThis).length',
    );
    expect(await valueOf('number', run(code))).toBe(0);
  });

  it('stops an endless loop at the time limit, and deep recursion at the stack limit', async () => {
    const started = Date.now();
    expect(await faultOf(run(fn('for (;;) {}')))).toBe('The code ran longer than 2 s and was stopped');
    // The limit is CPU time: on a busy machine the call takes longer, up to the wall-clock backstop.
    expect(Date.now() - started).toBeLessThan(2_000 * WALL_CLOCK_FACTOR + 1_500);
    expect(await faultOf(run(fn('const f = () => f() + 1; return f()')))).toBe('The code threw InternalError: stack overflow (line 1)');
  });

  it('stops unbounded allocation at the memory limit', async () => {
    const message = await faultOf(run(fn('const all = []; for (;;) all.push({ n: all.length, s: "x" + all.length })')));
    expect(message).toBe('The code used more than 16 MB of memory and was stopped');
  });

  it('shares nothing between calls: a global set by one call is gone in the next', async () => {
    expect(await valueOf('number', run(fn('globalThis.leak = 7; Object.prototype.polluted = 1; return 1')))).toBe(1);
    expect(await valueOf('number', run(fn('return (typeof globalThis.leak === "undefined" && ({}).polluted === undefined) ? 1 : 0')))).toBe(1);
  });

  it('keeps serving while sandboxed code loops: the host event loop is not blocked', async () => {
    const looping = run(fn('for (;;) {}'));
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(Date.now()), 50);
    const quick = await valueOf('number', run(fn('return 3')));
    await looping;
    clearInterval(timer);
    expect(quick).toBe(3);
    expect(ticks.length).toBeGreaterThan(10);
  });
});

describe('auto_custom_code_run: thrown values', () => {
  it('reports a thrown non-error value as such, not as memory exhaustion', async () => {
    expect(await faultOf(run(fn('throw null')))).toBe('The code threw the value null');
    expect(await faultOf(run(fn('throw { code: 7 }')))).toBe('The code threw the value {"code":7}');
  });
});
