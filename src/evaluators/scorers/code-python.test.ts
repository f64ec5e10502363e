// auto_custom_code_run with the Python runtime (Pyodide in locked-down child processes, see
// docs/evaluators.md#python-sandbox): the arguments and the number, Python's errors as error
// results, escape attempts (the host's JavaScript, files, processes, sockets, the environment,
// C-level access) that each end in an error result or find nothing of the host, the limits, a
// fresh interpreter per call, and a service that keeps answering while Python loops. Real child
// processes, one pool for the whole file.
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closePython } from '../sandbox/python.js';
import { WALL_CLOCK_FACTOR } from '../sandbox/pool.js';
import { getScorer } from '../scoring.js';
import { context, faultOf, score, scoringCase, valueOf } from '../../../test/helpers/scorers.js';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { startEndpoint, type FakeEndpoint } from '../../../test/helpers/endpoints.js';
import * as evaluations from '../../../test/helpers/evaluations.js';

// Set in the service's environment before the sandbox processes start: it must not reach them.
const CANARY = 'assay-canary-7f3e';
process.env.ASSAY_PYTHON_CANARY = CANARY;

// Interpreters start and restart here at a lower priority than other processes (python.ts): on a
// machine kept busy they take many seconds of wall-clock time, though little CPU time.
vi.setConfig({ testTimeout: 120_000 });

const workerFile = fileURLToPath(new URL('../sandbox/pyodide-worker.mjs', import.meta.url));

/** A Python evaluate whose body is `lines`. */
const py = (...lines: string[]) => ['def evaluate(app_params, inputs, output, correct_answer):', ...lines.map((line) => `    ${line}`)].join('\n');

// Settings without a runtime: a new config's default is Python.
function run(code: string, input: { output?: unknown; testcase?: Record<string, unknown>; appParams?: Record<string, unknown> } = {}) {
  return score(
    'auto_custom_code_run',
    { code },
    {
      output: input.output ?? 'Paris',
      testcase: input.testcase ?? { country: 'France', correct_answer: 'Paris' },
      appParams: input.appParams ?? { temperature: 0 },
    },
  );
}

beforeAll(async () => {
  // The pool's processes start with the first call (1-2 s each, more on a busy machine).
  expect(await valueOf('number', run(py('return 1')))).toBe(1);
}, 120_000);

afterAll(async () => {
  await closePython();
});

describe('auto_custom_code_run in Python', () => {
  it('calls evaluate(app_params, inputs, output, correct_answer) with the case; ints, floats and bools are numbers', async () => {
    expect(await valueOf('number', run(py('return 1.0 if output == correct_answer else 0.0')))).toBe(1);
    expect(await valueOf('number', run(py('return len(repr([app_params, inputs, output, correct_answer]))'), { output: { a: [1, null] } }))).toBe(
      "[{'temperature': 0}, {'country': 'France', 'correct_answer': 'Paris'}, {'a': [1, None]}, 'Paris']".length,
    );
    expect(await valueOf('number', run(py('print(inputs)', 'return 0.25 if correct_answer is None else 1'), { testcase: { q: 1 } }))).toBe(0.25);
    expect(await valueOf('number', run(py('return output == correct_answer')))).toBe(1);
    expect(await valueOf('number', run(py('return False')))).toBe(0);
    expect(await valueOf('number', run(py('return 3')))).toBe(3);
  });

  it('has the standard library: json, re, math, difflib, statistics, a clock and random numbers', async () => {
    const code = py(
      'import json, re, math, difflib, statistics, time, datetime, random',
      'assert time.time() > 1.7e9 and datetime.datetime.now().year >= 2025 and 0 <= random.random() < 1',
      'words = re.findall(r"\\w+", json.loads(json.dumps(output)))',
      'ratio = difflib.SequenceMatcher(None, output, correct_answer).ratio()',
      'return statistics.mean([ratio, math.sqrt(len(words))])',
    );
    expect(await valueOf('number', run(code))).toBe(1);
  });

  it("reports syntax errors, exceptions (the traceback's last line), a missing evaluate and non-numeric returns", async () => {
    expect(await faultOf(run('def evaluate(:\n    return 1'))).toMatch(/^The code does not compile: SyntaxError: .+ \(line 1\)$/);
    expect(await faultOf(run('def evaluate(*args):\nreturn 1'))).toMatch(/^The code does not compile: IndentationError: expected an indented block/);
    expect(await faultOf(run(`\n\n${py('x = 1', 'return 1 / 0')}`))).toBe('The code threw ZeroDivisionError: division by zero (line 5)');
    expect(await faultOf(run(py('raise ValueError("no luck")')))).toBe('The code threw ValueError: no luck (line 2)');
    expect(await faultOf(run('answer = 42'))).toBe('The code defines no function evaluate(app_params, inputs, output, correct_answer)');
    expect(await faultOf(run(py('return "0.5"')))).toBe("evaluate must return a number; it returned str: '0.5'");
    expect(await faultOf(run(py('return None')))).toBe('evaluate must return a number; it returned NoneType: None');
    expect(await faultOf(run(py('return float("nan")')))).toBe('evaluate must return a number; it returned a non-finite number: nan');
    expect(await faultOf(run(py('return 10 ** 400')))).toBe('evaluate must return a number; it returned an int too large for a float');
  });

  it.each([
    ['import js', py('import js', 'return 1'), "ModuleNotFoundError: No module named 'js' (not available in the sandbox)"],
    ['import pyodide_js', py('import pyodide_js', 'return 1'), "ModuleNotFoundError: No module named 'pyodide_js' (not available in the sandbox)"],
    ['import pyodide.code (run_js)', py('from pyodide.code import run_js', 'return run_js("process.pid")'), "No module named 'pyodide"],
    ['import ctypes', py('import ctypes', 'return 1'), "ModuleNotFoundError: No module named 'ctypes' (not available in the sandbox)"],
    ['start a process with subprocess', py('import subprocess', 'return subprocess.run(["ls", "/"]).returncode'), 'does not support processes'],
    ['start a shell with os.system', py('import os', 'return os.system("touch /tmp/assay-escape")'), 'Use --allow-child-process'],
    ['read /etc/passwd', py('return len(open("/etc/passwd").read())'), "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd'"],
    ["read the sandbox's own script", py(`return len(open(${JSON.stringify(workerFile)}).read())`), 'FileNotFoundError'],
    [
      "reach the host's JavaScript through an object found with gc (its Function constructor)",
      py(
        'import gc',
        'ffi = next(m for m in gc.get_objects() if type(m).__name__ == "module" and m.__name__ == "pyodide.ffi")',
        'return ffi.to_js([]).constructor.constructor("return process")().pid',
      ),
      'EvalError: Code generation from strings disallowed',
    ],
  ])('gives an error result to code that tries to %s', async (_, code, message) => {
    expect(await faultOf(run(code))).toContain(message);
  });

  it("finds no JavaScript object anywhere in the interpreter (not even Pyodide's own API) to start from", async () => {
    const code = py(
      'import gc',
      'held = set()',
      'for holder in gc.get_objects():',
      '    for value in gc.get_referents(holder):',
      '        if any(kind.__name__ == "JsProxy" for kind in type(value).__mro__) and repr(value) != "null":',
      '            held.add(type(holder).__name__)',
      'return len(held)',
    );
    expect(await valueOf('number', run(code))).toBe(0);
  });

  it("sees none of the host's environment, files or processes", async () => {
    // The service's environment holds the canary; the interpreter's is Pyodide's own few variables.
    const environment = py('import os', `return 1 if any("${CANARY}" in value for value in os.environ.values()) or "ASSAY_PYTHON_CANARY" in os.environ else 0`);
    expect(await valueOf('number', run(environment))).toBe(0);
    // The file system is the interpreter's own, in memory: no /work, /etc/passwd or /proc of the host.
    const files = py(
      'import os',
      'seen = os.listdir("/")',
      'return 1 if {"tmp", "lib"} <= set(seen) and not {"work", "usr", "root"} & set(seen) and not os.path.exists("/etc/passwd") else 0',
    );
    expect(await valueOf('number', run(files))).toBe(1);
    const pid = py('import os', 'return os.getpid()');
    expect(await valueOf('number', run(pid))).toBe(42);
  });

  it('cannot open a socket: a connection to a loopback port fails, and nothing connects', async () => {
    let connections = 0;
    const listener: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    try {
      const message = await faultOf(run(py('import socket', `socket.create_connection(("127.0.0.1", ${port}), timeout=1)`, 'return 1')));
      expect(message).toMatch(/^The code threw OSError: /);
      const http = await faultOf(run(py('import urllib.request', `return len(urllib.request.urlopen("http://127.0.0.1:${port}/").read())`)));
      expect(http).toMatch(/^The code threw /);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connections).toBe(0);
    } finally {
      listener.close();
    }
  });

  it('stops an endless loop at the time limit, a memory bomb at the memory limit, deep recursion with RecursionError; the next call works', async () => {
    const started = Date.now();
    expect(await faultOf(run(py('while True:', '    pass')))).toBe('The code ran longer than 2 s and was stopped');
    // The limit is CPU time: on a busy machine the call takes longer, up to the wall-clock backstop.
    expect(Date.now() - started).toBeLessThan(2_000 * WALL_CLOCK_FACTOR + 500);
    expect(await valueOf('number', run(py('return 2')))).toBe(2);
    expect(await faultOf(run(py('blocks = []', 'while True:', '    blocks.append(bytearray(1024 * 1024))')))).toBe(
      'The code used more than 128 MB of memory and was stopped',
    );
    expect(await valueOf('number', run(py('return 3')))).toBe(3);
    expect(await faultOf(run(py('def down(n):', '    return down(n + 1)', 'return down(0)')))).toBe(
      'The code threw RecursionError: maximum recursion depth exceeded (line 3)',
    );
    expect(await valueOf('number', run(py('return 4')))).toBe(4);
    // Past Python's own guard, the interpreter's stack overflows: that process ends, the next call is served.
    const overflow = py('import sys', 'sys.setrecursionlimit(10 ** 6)', 'def down(n):', '    return down(n + 1)', 'return down(0)');
    expect(await faultOf(run(overflow))).toBe('The sandbox failed while running the code: Maximum call stack size exceeded');
    expect(await valueOf('number', run(py('return 5')))).toBe(5);
  });

  // Calls made one after another go to the first idle process, so each check runs where the
  // change before it was made.
  it('gives every call a fresh interpreter: globals, patched built-ins, imported state, written files and the working directory are gone', async () => {
    const dirty = py(
      'global leak',
      'leak = 7',
      'import builtins, json, sys',
      'builtins.len = lambda value: -1',
      'json.dumps = None',
      'math_module = sys.modules["math"]',
      'math_module.isfinite = lambda value: False',
      'sys.modules["planted"] = sys',
      'return 1',
    );
    expect(await valueOf('number', run(dirty))).toBe(1);
    const check = py(
      'import json, math, sys',
      'return 1 if "leak" not in globals() and len("ab") == 2 and json.dumps(1) == "1" and math.isfinite(1) and "planted" not in sys.modules else 0',
    );
    expect(await valueOf('number', run(check))).toBe(1);
    expect(await valueOf('number', run(py('open("/tmp/left-behind", "w").write("secret")', 'import os', 'os.chdir("/tmp")', 'return 1')))).toBe(1);
    expect(await valueOf('number', run(py('import os', 'return 1 if os.path.exists("/tmp/left-behind") or os.getcwd() == "/tmp" else 0')))).toBe(0);
  });

  it('runs a config stored without a runtime (saved when JavaScript was the only one) as JavaScript', async () => {
    const scorer = getScorer('auto_custom_code_run')!;
    const scored = await scorer({ code: 'function evaluate() { return 7 }' }, scoringCase({ output: 'x' }), context());
    expect(scored).toMatchObject({ type: 'number', value: 7 });
  });
});

describe('the service while Python runs', () => {
  let server: TestServer;
  let endpoint: FakeEndpoint;

  beforeAll(async () => {
    server = await startServer();
    endpoint = await startEndpoint(() => ({ body: { message: 'Paris' } }));
  });

  afterAll(async () => {
    await endpoint.close();
    await server.close();
  });

  it('answers other requests within 100 ms while a Python evaluator loops forever', async () => {
    const appId = await evaluations.createApp(server);
    const variant = await evaluations.createEndpointVariant(server, appId, endpoint.url);
    const testset = await evaluations.createTestset(server, [{ country: 'France', correct_answer: 'Paris' }]);
    const looping = await evaluations.createConfig(server, appId, 'auto_custom_code_run', { code: py('while True:', '    pass') });
    expect(looping.settings_values.runtime).toBe('python');
    expect((await server.request('GET', '/evaluators')).status).toBe(200);
    const { id } = await evaluations.startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [looping.id],
      testset_id: testset.id,
    });
    // Wait until the evaluator is running (the app has answered), then ask while it loops.
    await endpoint.waitForRequests(1);
    const latencies: number[] = [];
    for (let probe = 0; probe < 5; probe += 1) {
      const started = performance.now();
      expect((await server.request('GET', '/evaluators')).status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Math.max(...latencies), JSON.stringify(latencies)).toBeLessThan(100);
    expect((await evaluations.waitForStatus(server, id, undefined, 20_000)).status.value).toBe('EVALUATION_FINISHED_WITH_ERRORS');
    const [scenario] = await evaluations.getScenarios(server, id);
    expect(scenario.results[0].result.error.message).toBe('The code ran longer than 2 s and was stopped');
  });
});
