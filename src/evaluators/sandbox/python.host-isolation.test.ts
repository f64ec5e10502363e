// Python in the sandbox learns nothing of the host's install (docs/evaluators.md#python-sandbox):
// the interpreter's program name and arguments, its environment, its modules' files, its import
// path, tracebacks and the stacks of JavaScript errors it reaches name no directory of the
// service. And a read outside the interpreter's memory is reported as the crash it is, not as
// the memory limit. Real child processes, one pool for the file.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePython, runPython } from './python.js';

const py = (...lines: string[]) => ['def evaluate(app_params, inputs, output, correct_answer):', ...lines.map((line) => `    ${line}`)].join('\n');
const args = [{}, {}, null, null];

/** The service's install: the repository, and with it node_modules. */
const installRoot = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');

/** What `expression` evaluates to in the sandbox, as its repr (handed back as an exception's message). */
async function reprIn(...lines: string[]): Promise<string> {
  const outcome = await runPython(py(...lines.slice(0, -1), `raise Exception(repr(${lines.at(-1)}))`), args);
  expect(outcome).toMatchObject({ ok: false, kind: 'exception' });
  return (outcome as { message: string }).message;
}

beforeAll(async () => {
  expect(await runPython(py('return 1'), args)).toEqual({ ok: true, value: 1 });
}, 120_000);

afterAll(async () => {
  await closePython();
});

describe("what Python sees of the host's install", () => {
  it.each([
    ['the program name and arguments', ['import sys', '[sys.executable, sys.orig_argv, sys.argv, getattr(sys, "_base_executable", None)]']],
    ['the environment', ['import os', '[dict(os.environ), os.environb, __import__("posix").environ]']],
    ['the import path and prefixes', ['import sys', '[sys.path, sys.prefix, sys.exec_prefix, sys.base_prefix]']],
    ['the files of the loaded modules', ['import sys', '[getattr(module, "__file__", None) for module in list(sys.modules.values())]']],
    ['the working directory', ['import os', 'os.getcwd()']],
  ])('names no directory of the service in %s', async (_, lines) => {
    const seen = await reprIn(...lines);
    expect(seen).not.toContain(installRoot);
    expect(seen).not.toContain('node_modules');
    expect(seen).not.toContain('pyodide-worker');
  });

  it('sets no `_` (the program that started it) in the environment', async () => {
    expect(await runPython(py('import os', 'return 1 if "_" in os.environ else 0'), args)).toEqual({ ok: true, value: 0 });
  });

  it('names no directory of the service in a traceback or in the stack of a JavaScript error it reaches', async () => {
    const traceback = await reprIn('import json, traceback', 'try:', '    json.loads("{")', 'except ValueError:', '    text = traceback.format_exc()', 'text');
    expect(traceback).toContain('JSONDecodeError');
    const stack = await reprIn(
      'import gc',
      'ffi = next(m for m in gc.get_objects() if type(m).__name__ == "module" and m.__name__ == "pyodide.ffi")',
      'try:',
      '    ffi.to_js([]).constructor.constructor("return process")()',
      'except Exception as error:',
      '    text = error.js_error.stack',
      'text',
    );
    expect(stack).toContain('EvalError');
    expect(stack).toMatch(/at \S+ \(pyodide\.asm\.js:\d+\)/);
    for (const seen of [traceback, stack]) {
      expect(seen).not.toContain(installRoot);
      expect(seen).not.toContain('node_modules');
    }
  });
});

describe('a read outside the interpreter', () => {
  it('is a crash of the code, not the memory limit; a real memory bomb still is the memory limit; the next call works', { timeout: 60_000 }, async () => {
    // ctypes is refused on import, a convenience only (the process is the boundary): the hook removed, it loads.
    const outside = py('import sys', 'sys.meta_path.pop(0)', 'import ctypes', 'return len(ctypes.string_at(0x7FFFFFF0, 64))');
    expect(await runPython(outside, args)).toEqual({
      ok: false,
      kind: 'crash',
      message: "the code read or wrote outside the interpreter's memory (memory access out of bounds)",
    });
    expect(await runPython(py('return 2'), args)).toEqual({ ok: true, value: 2 });
    expect(await runPython(py('blocks = []', 'while True:', '    blocks.append(bytearray(1024 * 1024))'), args)).toEqual({ ok: false, kind: 'memory' });
  });
});
