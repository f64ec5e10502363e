// JavaScript in the sandbox learns nothing of the host's install (docs/evaluators.md#custom-code):
// its error stacks name only the evaluator's own file, and the errors of what it cannot reach
// (modules, host globals) name no directory of the service.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSandbox, runJavaScript } from './javascript.js';

const args = [{}, {}, null, null];

/** The service's install: the repository, and with it node_modules. */
const installRoot = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');

afterAll(async () => {
  await closeSandbox();
});

describe("what JavaScript sees of the host's install", () => {
  it('finds only evaluator.js in the stack of an error', async () => {
    const outcome = await runJavaScript('function evaluate() { const inner = () => new Error("x").stack; return inner() }', args);
    expect(outcome).toMatchObject({ ok: false, kind: 'not_a_number' });
    const stack = (outcome as { message: string }).message;
    expect(stack).toContain('evaluator.js');
    expect(stack).not.toContain(installRoot);
    expect(stack).not.toMatch(/node_modules|quickjs-worker/);
  });

  it.each([
    ['a module it imports', 'async function evaluate() { await import("node:fs"); return 1 }'],
    ['a relative module', 'async function evaluate() { await import("./quickjs-worker.mjs"); return 1 }'],
    ['a host global', 'function evaluate() { return process.cwd() }'],
    ['an error thrown deep in its own code', 'function evaluate() { const down = (n) => (n ? down(n - 1) : null.x); return down(50) }'],
  ])('names no directory of the service in the error of %s', async (_, code) => {
    const outcome = await runJavaScript(code, args);
    expect(outcome).toMatchObject({ ok: false, kind: 'exception' });
    const message = (outcome as { message: string }).message;
    expect(message).not.toContain(installRoot);
    expect(message).not.toContain('node_modules');
  });
});
