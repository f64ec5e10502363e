// The Python sandbox's child process (docs/evaluators.md#python-sandbox). The parent
// (python.ts) starts it under Node's permission model, with an empty environment, no code
// generation from strings and capped heaps; this file then:
// 1. loads Pyodide (CPython in WebAssembly) with an empty, frozen `js` module and no
//    `pyodide_js`, so Python's ways into JavaScript lead to nothing of the host;
// 2. removes every host capability from the JavaScript global scope (process, require, fetch,
//    WebSocket, timers, …) and freezes the built-in objects, so that even JavaScript reached from
//    Python could neither leave the process nor leave a trace for a later call;
// 3. (loaded from Pyodide's memory snapshot when the service has one, else making it,) takes a
//    copy of the interpreter's whole WebAssembly memory, ready, and after each call copies
//    it back: every call starts from the same fresh interpreter without paying its 1-2 s start.
//    A call that changed anything the copy does not cover (the memory grew, a file was written,
//    a JavaScript object or Python proxy outlived it) makes this process exit instead; the
//    parent starts a new one.
// It answers one job at a time over the IPC channel: {id, code, args (JSON texts)} → {id, outcome}.
import { constants as fsConstants } from 'node:fs';

const pyodideDir = process.argv[2];
const memoryCapBytes = Number(process.argv[3]);
const MAX_TEXT = 2000;

// Kept before the global scope is emptied: the only ways out of this process are these.
const send = process.send.bind(process);
const onMessage = process.on.bind(process, 'message');
const exit = process.exit.bind(process);
// The service went away: so does this process.
process.on('disconnect', () => exit(0));
const setImmediateSafe = globalThis.setImmediate;

// Under --permission, process.binding is refused; Emscripten's NODEFS reads only its constants.
process.binding = (name) => {
  if (name === 'constants') return { fs: fsConstants };
  throw new Error(`process.binding(${name}) is not available`);
};

// The interpreter's memory cap: Emscripten creates its memory with a 4 GB maximum; this clamps
// it, so a growth past the cap fails inside malloc and Python raises MemoryError.
const { WebAssembly } = globalThis;
const NativeMemory = WebAssembly.Memory;
const pageBytes = 65536;
// Every memory made while Pyodide loads, to find the interpreter's among them.
const memories = [];
WebAssembly.Memory = function Memory(descriptor) {
  const maximum = Math.max(descriptor.initial, Math.floor(memoryCapBytes / pageBytes));
  const made = new NativeMemory({ ...descriptor, maximum: Math.min(descriptor.maximum ?? maximum, maximum) });
  memories.push(made);
  return made;
};
WebAssembly.Memory.prototype = NativeMemory.prototype;

// Pyodide's own memory snapshot of a freshly loaded interpreter, when the service has one (made
// by the first process, before any user code ran): loading from it takes a tenth of the time.
const snapshot = await new Promise((resolve) => {
  process.once('message', (message) => resolve(message.snapshot ?? null));
  send({ hello: true });
});
const { loadPyodide } = await import(new URL('pyodide.mjs', `file://${pyodideDir}/`).href);
const pyodide = await loadPyodide({
  indexURL: `${pyodideDir}/`,
  jsglobals: Object.freeze(Object.create(null)),
  // Emscripten names the program (sys.executable, sys.orig_argv) and sets `_` in the environment
  // after this script's path: the interpreter gets a neutral name and no `_`.
  _sysExecutable: 'python',
  env: { HOME: '/home/pyodide', _: undefined },
  stdin: () => null,
  stdout: () => {},
  stderr: () => {},
  ...(snapshot ? { _loadSnapshot: snapshot } : { _makeSnapshot: true }),
});
if (!snapshot) send({ snapshot: pyodide.makeMemorySnapshot() });
pyodide.unregisterJsModule('js');
pyodide.unregisterJsModule('pyodide_js');
const Module = pyodide._module;
// The interpreter's memory, kept here: the restore and the checks use it, not Pyodide's own
// (mutable) view of it.
const memory = memories.find((candidate) => candidate.buffer === Module.HEAPU8.buffer);
if (!memory) throw new Error("the interpreter's memory was not made through WebAssembly.Memory");
WebAssembly.Memory = NativeMemory;

// The driver: runs the user's code in a fresh namespace and reports in JSON, so that no Python
// object crosses into JavaScript (a proxy would outlive the memory restore).
pyodide.runPython(String.raw`
import sys, json, math, random, re, difflib, statistics, traceback, collections, itertools, functools, string, datetime, decimal, fractions, unicodedata

# Every JavaScript object Python still holds is dropped: the modules' own references and the
# import loaders of "js" and "pyodide_js" (the latter is Pyodide's whole API). Then the heap is
# searched: if anything but jsnull is left (a new Pyodide may hold more), the sandbox does not start.
import gc
from pyodide.ffi import JsProxy as _JsProxy, jsnull as _jsnull
for _name in ("pyodide.webloop", "pyodide._package_loader"):
    _module = sys.modules.get(_name)
    for _attr in ("scheduleCallback", "loadedPackages"):
        if _module is not None and hasattr(_module, _attr):
            delattr(_module, _attr)
for _name in [_name for _name in sys.modules if _name.split(".")[0] in ("js", "pyodide_js")]:
    del sys.modules[_name]
for _holder in gc.get_objects():
    if type(_holder).__name__ == "JsLoader":
        _holder.jsproxy = None
gc.collect()
_left = {type(_holder).__name__ for _holder in gc.get_objects() for _held in gc.get_referents(_holder) if isinstance(_held, _JsProxy) and _held is not _jsnull}
if _left:
    raise RuntimeError(f"JavaScript objects are still reachable from Python (held by {sorted(_left)})")
del _JsProxy, _jsnull, _holder, _left

class _Blocked:
    """Refuses modules that lead into the JavaScript host or the C level."""
    NAMES = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "ctypes", "_ctypes", "micropip")
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.NAMES:
            raise ModuleNotFoundError(f"No module named '{name}' (not available in the sandbox)", name=name)
        return None

sys.meta_path.insert(0, _Blocked())

# The driver's own references, taken before any user code: code that patches json, math or
# traceback changes its own call only, never how its result is reported.
_dumps, _loads, _isfinite, _format_only, _extract_tb, _seed = json.dumps, json.loads, math.isfinite, traceback.format_exception_only, traceback.extract_tb, random.seed
_modules, _builtins, _compile, _exec, _callable = sys.modules, __builtins__, compile, exec, callable
import builtins as _builtins_module
_builtins_saved = dict(_builtins_module.__dict__)

def _restore_builtins():
    _builtins_module.__dict__.clear()
    _builtins_module.__dict__.update(_builtins_saved)

def _last_line(error):
    return _format_only(type(error), error)[-1].strip()[:${MAX_TEXT}]

def _line_of(error):
    line = None
    for frame in _extract_tb(error.__traceback__):
        if frame.filename == "<evaluator>":
            line = frame.lineno
    return line

def _describe(value):
    text = repr(value)
    return f"{type(value).__name__}: {text[:${MAX_TEXT}]}"

class _Discard:
    def write(self, text):
        return len(text)
    def flush(self):
        pass

_NO_FUNCTION = object()

def _outcome(code, args_json):
    _seed()
    sys.stdout = sys.stderr = _Discard()
    hidden = [name for name in list(_modules) if name.split(".")[0] in _Blocked.NAMES]
    for name in hidden:
        del _modules[name]
    namespace = {"__name__": "__evaluator__", "__builtins__": _builtins}
    try:
        compiled = _compile(code, "<evaluator>", "exec")
    except SyntaxError as error:
        return {"ok": False, "kind": "syntax", "message": _last_line(error), "line": error.lineno}
    # The user's code runs; the built-ins it may have replaced are put back before reporting.
    caught = None
    try:
        _exec(compiled, namespace)
        evaluate = namespace.get("evaluate")
        value = evaluate(*_loads(args_json)) if _callable(evaluate) else _NO_FUNCTION
    except BaseException as error:
        caught = error
    _restore_builtins()
    if isinstance(caught, MemoryError):
        return {"ok": False, "kind": "memory"}
    if caught is not None:
        return {"ok": False, "kind": "exception", "message": _last_line(caught), "line": _line_of(caught)}
    if value is _NO_FUNCTION:
        return {"ok": False, "kind": "no_function"}
    # bool is an int in Python: True and False are 1 and 0, as Agenta takes them.
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return {"ok": False, "kind": "not_a_number", "message": "an int too large for a float"}
        if _isfinite(number):
            return {"ok": True, "value": number}
        return {"ok": False, "kind": "not_a_number", "message": f"a non-finite number: {number}"}
    return {"ok": False, "kind": "not_a_number", "message": _describe(value)}

def _assay_run(code, args_json):
    try:
        return _dumps(_outcome(code, args_json))
    except BaseException:
        # The user's code broke something the report needs (e.g. a value whose repr raises).
        return '{"ok": false, "kind": "crash", "message": "the result could not be reported (the code broke what reports it)"}'
`);
const run = pyodide.globals.get('_assay_run');

// Room for the calls' allocations inside the copied memory: grown once here, freed to Python's
// allocator, so that an ordinary call does not grow the memory (which would end this process).
pyodide.runPython('_room = bytearray(32 * 1024 * 1024)\ndel _room');

// What a call may change without the copy covering it, watched.
let touched = false;
const touch = () => {
  touched = true;
};
const FS = Module.FS;
for (const name of [
  'write',
  'writeFile',
  'mknod',
  'mkdir',
  'symlink',
  'rename',
  'rmdir',
  'unlink',
  'chmod',
  'fchmod',
  'lchmod',
  'chown',
  'fchown',
  'lchown',
  'truncate',
  'ftruncate',
  'utime',
  'mount',
  'unmount',
  'chdir',
]) {
  const original = FS[name];
  if (typeof original !== 'function') continue;
  FS[name] = function (...args) {
    touch();
    return original.apply(this, args);
  };
}
const openOriginal = FS.open;
FS.open = function (path, flags, ...rest) {
  // Emscripten's flags: O_WRONLY 1, O_RDWR 2, O_CREAT 64, O_TRUNC 512, O_APPEND 1024.
  if (typeof flags === 'string' ? flags !== 'r' : (flags & (1 | 2 | 64 | 512 | 1024)) !== 0) touch();
  return openOriginal.call(this, path, flags, ...rest);
};
const pyproxyNew = Module.pyproxy_new;
Module.pyproxy_new = function (...args) {
  touch();
  return pyproxyNew.apply(this, args);
};

const now = globalThis.performance.now.bind(globalThis.performance);
const { timeOrigin } = globalThis.performance;
// The host's capabilities leave the global scope; Node's internals keep their own references.
for (const key of Reflect.ownKeys(globalThis)) {
  if (
    [
      'Object',
      'Function',
      'Array',
      'Number',
      'parseFloat',
      'parseInt',
      'Infinity',
      'NaN',
      'undefined',
      'Boolean',
      'String',
      'Symbol',
      'Date',
      'Promise',
      'RegExp',
      'Error',
      'AggregateError',
      'EvalError',
      'RangeError',
      'ReferenceError',
      'SyntaxError',
      'TypeError',
      'URIError',
      'globalThis',
      'JSON',
      'Math',
      'Intl',
      'ArrayBuffer',
      'Atomics',
      'Uint8Array',
      'Int8Array',
      'Uint16Array',
      'Int16Array',
      'Uint32Array',
      'Int32Array',
      'Float32Array',
      'Float64Array',
      'Uint8ClampedArray',
      'BigUint64Array',
      'BigInt64Array',
      'DataView',
      'Map',
      'BigInt',
      'Set',
      'WeakMap',
      'WeakSet',
      'Proxy',
      'Reflect',
      'FinalizationRegistry',
      'WeakRef',
      'decodeURI',
      'decodeURIComponent',
      'encodeURI',
      'encodeURIComponent',
      'escape',
      'unescape',
      'isFinite',
      'isNaN',
      'SharedArrayBuffer',
      'WebAssembly',
      'Iterator',
      'Float16Array',
      'TextDecoder',
      'TextEncoder',
      'crypto',
      'Crypto',
      'CryptoKey',
      'SubtleCrypto',
    ].includes(key)
  )
    continue;
  if (!delete globalThis[key]) throw new Error(`the global ${String(key)} cannot be removed`);
}
// Node's console and performance hold streams and timers of the process: the interpreter gets a
// console that does nothing and a clock.
globalThis.console = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };
globalThis.performance = { now, timeOrigin };
// Node defines some globals lazily, on first read: read the kept ones now, before freezing.
for (const key of Reflect.ownKeys(globalThis)) void globalThis[key];
if (Reflect.ownKeys(globalThis).some((key) => typeof key === 'symbol')) throw new Error('a symbol-keyed global appeared');

// Frozen built-ins: a call that reached them could not change how a later call behaves. Error
// keeps one writable property, stackTraceLimit, which Pyodide sets when it turns a Python error
// into a JavaScript one (a number: it changes no result).
const seen = new WeakSet([Error]);
function harden(value) {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  hardenMembers(value);
}
function hardenMembers(value) {
  harden(Object.getPrototypeOf(value));
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
    if (!descriptor) continue;
    if ('value' in descriptor) harden(descriptor.value);
    harden(descriptor.get);
    harden(descriptor.set);
  }
}
// JavaScript errors that Python reaches (a JsException's js_error.stack) name their frames by
// file name only: no path of the service's install (docs/evaluators.md#python-sandbox).
Error.prepareStackTrace = (error, frames) =>
  [
    Error.prototype.toString.call(error),
    ...frames.map((frame) => {
      const line = frame.getLineNumber();
      return `    at ${frame.getFunctionName() ?? '<anonymous>'} (${String(frame.getFileName() ?? '<anonymous>')
        .split('/')
        .pop()}${line ? `:${line}` : ''})`;
    }),
  ].join('\n');
for (const key of Reflect.ownKeys(Error)) {
  Object.defineProperty(Error, key, { configurable: false, ...(key === 'stackTraceLimit' ? {} : { writable: false }) });
}
Object.preventExtensions(Error);
hardenMembers(Error);
harden(globalThis);
for (const hidden of [
  function* () {},
  async function () {},
  async function* () {},
  [][Symbol.iterator](),
  new Map().entries(),
  new Set().values(),
  ''[Symbol.iterator](),
  /x/[Symbol.matchAll](''),
]) {
  harden(hidden);
}

// Ready: the copy every call starts from.
const heap = () => new Uint8Array(memory.buffer);
const { wasmTable: table, _hiwire_num_refs: liveReferences } = Module;
const streams = FS.streams;
const pristine = heap().slice();
const baseline = { bytes: pristine.length, table: table.length, refs: liveReferences(), streams: streams.slice() };
touched = false;

function clip(text) {
  const value = String(text);
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}

function unchanged() {
  if (touched) return false;
  if (memory.buffer.byteLength !== baseline.bytes || table.length !== baseline.table) return false;
  if (liveReferences() !== baseline.refs || FS.streams !== streams) return false;
  if (streams.length !== baseline.streams.length) return false;
  return baseline.streams.every((stream, fd) => streams[fd] === stream);
}

function runJob({ code, args }) {
  try {
    return JSON.parse(run(code, `[${args.join(',')}]`));
  } catch (error) {
    // A fault of the interpreter itself (e.g. its C stack overflowed): it cannot be trusted again.
    touched = true;
    const message = error instanceof Error ? error.message : String(error);
    // A read or write outside the interpreter's memory (a bad pointer, e.g. through ctypes) is
    // a crash of the code; only a memory that could not grow is the memory limit.
    if (error instanceof WebAssembly.RuntimeError && /out of bounds/i.test(message)) {
      return { ok: false, kind: 'crash', message: `the code read or wrote outside the interpreter's memory (${clip(message)})` };
    }
    if (/memory/i.test(message)) return { ok: false, kind: 'memory' };
    return { ok: false, kind: 'crash', message: clip(message) };
  }
}

onMessage((job) => {
  const outcome = runJob(job);
  // Promise jobs a call queued run before the check (one turn of the event loop).
  setImmediateSafe(() => {
    const fresh = unchanged();
    if (fresh) heap().set(pristine);
    send({ id: job.id, outcome, recycle: !fresh }, () => {
      if (!fresh) exit(0);
    });
  });
});
send({ ready: true });
