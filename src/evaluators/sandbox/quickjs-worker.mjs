// The sandbox's worker thread (plain JavaScript so that Node loads it as is, under tsx, vitest or
// plain node). It runs one job at a time: a FRESH QuickJS WebAssembly instance per job (its own
// linear memory: nothing survives from one call to the next), with a memory limit, a stack limit
// and a limit of this thread's CPU time enforced by QuickJS's interrupt handler (a busy machine
// slows the guest down without using up its time: docs/evaluators.md#time-limits). The guest gets
// the QuickJS language and its standard built-ins only: no module loader, no host functions (no
// require/import, fs, net, fetch, process, timers); the four arguments are handed over as JSON
// texts and parsed inside.
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-wasmfile-release-sync';

/** Caps what a guest can make us copy back. */
const MAX_TEXT = 2000;

/** This thread's CPU time in ms (the wall clock where Node does not tell it: before 23.9). */
const threadCpuMs =
  typeof process.threadCpuUsage === 'function'
    ? () => {
        const { user, system } = process.threadCpuUsage();
        return (user + system) / 1000;
      }
    : () => performance.now();

// Defined inside the guest before its code, as plain JavaScript: print debugging must not throw.
const PRELUDE = `globalThis.console = (() => { const noop = () => undefined;
  return { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop }; })();`;

function clip(text) {
  const value = String(text);
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}

/** The guest's error as {name, message, line}. */
function describe(context, handle) {
  let dumped;
  try {
    dumped = context.dump(handle);
  } catch {
    return { name: 'Error', message: 'an error that could not be read' };
  }
  if (dumped && typeof dumped === 'object' && typeof dumped.message === 'string') {
    const stack = typeof dumped.stack === 'string' ? dumped.stack : '';
    const line = /evaluator\.js:(\d+)/.exec(stack)?.[1];
    return { name: String(dumped.name ?? 'Error'), message: clip(dumped.message ?? JSON.stringify(dumped)), line: line ? Number(line) : null };
  }
  return { name: 'thrown value', message: clip(JSON.stringify(dumped) ?? String(dumped)), line: null };
}

/**
 * Whether the guest's allocations reached the memory limit. QuickJS raises "out of memory", or,
 * when even that error cannot be allocated, a bare null. The guest's objects are freed as its
 * frames unwind, but the WebAssembly memory never shrinks: grown by more than the limit (QuickJS's
 * count leaves out its allocator's overhead, so the real growth is several times the limit) it
 * tells such a null from a guest's own `throw null`.
 */
function memoryExhausted(error, state) {
  if (/out of memory/i.test(error.message)) return true;
  if (error.name !== 'thrown value' || error.message !== 'null') return false;
  try {
    return state.module.getWasmMemory().buffer.byteLength >= state.startBytes + state.memoryBytes;
  } catch {
    return false;
  }
}

function classify(error, state) {
  if (state.interrupted) return { ok: false, kind: 'timeout' };
  if (memoryExhausted(error, state)) return { ok: false, kind: 'memory' };
  if (error.name === 'SyntaxError') return { ok: false, kind: 'syntax', message: `SyntaxError: ${error.message}`, line: error.line };
  const message = error.name === 'thrown value' ? `the value ${error.message}` : `${error.name}: ${error.message}`;
  return { ok: false, kind: 'exception', message, line: error.line };
}

/** Unwraps an eval/call result: the value handle, or throws {guestError}. */
function take(context, result, state) {
  if (result.error) {
    const error = describe(context, result.error);
    result.error.dispose();
    throw { outcome: classify(error, state) };
  }
  return result.value;
}

function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

async function run({ code, args, limits }) {
  const module = await newQuickJSWASMModuleFromVariant(variant);
  const runtime = module.newRuntime();
  const state = { interrupted: false, module, memoryBytes: limits.memoryBytes };
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const deadline = threadCpuMs() + limits.timeoutMs;
  runtime.setInterruptHandler(() => {
    if (threadCpuMs() > deadline) state.interrupted = true;
    return state.interrupted;
  });
  const context = runtime.newContext();
  state.startBytes = module.getWasmMemory().buffer.byteLength;
  try {
    take(context, context.evalCode(PRELUDE, 'prelude.js'), state).dispose();
    // The arguments are parsed inside the guest before its code runs, from JSON texts.
    const parse = take(context, context.evalCode('JSON.parse', 'prelude.js'), state);
    const argHandles = args.map((json) => {
      const text = context.newString(json);
      const value = take(context, context.callFunction(parse, context.undefined, text), state);
      text.dispose();
      return value;
    });
    parse.dispose();

    take(context, context.evalCode(code, 'evaluator.js', { type: 'global' }), state).dispose();
    const evaluate = context.getProp(context.global, 'evaluate');
    if (context.typeof(evaluate) !== 'function') {
      evaluate.dispose();
      return { ok: false, kind: 'no_function' };
    }
    let returned = take(context, context.callFunction(evaluate, context.undefined, ...argHandles), state);
    evaluate.dispose();
    for (const handle of argHandles) handle.dispose();

    // An async evaluate: run its jobs (still under the deadline) and take what it settled to.
    const promiseState = context.getPromiseState(returned);
    if (promiseState.type !== 'fulfilled' || promiseState.notAPromise !== true) {
      if (promiseState.type === 'pending') {
        const jobs = runtime.executePendingJobs();
        if (jobs.error) {
          const error = describe(context, jobs.error);
          jobs.error.dispose();
          return classify(error, state);
        }
      }
      const settled = context.getPromiseState(returned);
      if (settled.type === 'pending') {
        returned.dispose();
        return state.interrupted ? { ok: false, kind: 'timeout' } : { ok: false, kind: 'pending' };
      }
      if (settled.type === 'rejected') {
        const error = describe(context, settled.error);
        settled.error.dispose();
        returned.dispose();
        return classify(error, state);
      }
      if (settled.value !== returned) {
        returned.dispose();
        returned = settled.value;
      }
    }
    const kind = context.typeof(returned);
    let value;
    if (kind === 'number') value = context.getNumber(returned);
    else {
      try {
        value = context.dump(returned);
      } catch {
        value = undefined;
      }
    }
    returned.dispose();
    if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
    const shown = typeof value === 'number' ? String(value) : clip(JSON.stringify(value) ?? String(value));
    return { ok: false, kind: 'not_a_number', message: `${typeof value === 'number' ? 'a non-finite number' : typeName(value)}: ${shown}` };
  } catch (thrown) {
    if (thrown && thrown.outcome) return thrown.outcome;
    // A fault of the engine itself (e.g. memory so short that QuickJS could not even raise an
    // error): the instance is dropped either way.
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    if (state.interrupted) return { ok: false, kind: 'timeout' };
    return { ok: false, kind: /memory|alloc/i.test(message) ? 'memory' : 'crash', message: clip(message) };
  } finally {
    // The whole WebAssembly instance is dropped after the job; disposing only tidies up early.
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      // a leaked handle in a failed run: the instance is garbage either way
    }
  }
}

parentPort.on('message', (job) => {
  run(job).then(
    (outcome) => parentPort.postMessage({ id: job.id, outcome }),
    (error) => parentPort.postMessage({ id: job.id, outcome: { ok: false, kind: 'crash', message: clip(error?.message ?? error) } }),
  );
});
