// The Python sandbox of auto_custom_code_run (docs/evaluators.md#python-sandbox): CPython compiled
// to WebAssembly (Pyodide, from its npm package: interpreter and standard library, nothing fetched)
// in child processes of their own. Pyodide alone is no sandbox (Python reaches its JavaScript host
// through `js` and `pyodide_js`), so the boundary is the process and what it is left with:
// - Node's permission model (--permission): the process reads only Pyodide's files and its own
//   script, writes nothing, starts no process or worker thread, loads no addon, no WASI.
// - An empty environment: no variable of the service's reaches it.
// - No code generation from strings (eval, Function, and so dynamic import), and the worker
//   (pyodide-worker.mjs) removes every host capability from the JavaScript global scope (process,
//   require, fetch, WebSocket, timers, …) and freezes the built-ins before user code runs. Node 24's
//   permission model does not cover the network; with nothing left that reaches it, neither Python
//   nor JavaScript reached from Python can open a socket (test: python.test.ts).
// - Limits: the time limit is the parent's, on the process's CPU time read from /proc (the process
//   is killed and replaced; docs/evaluators.md#time-limits); the interpreter's memory is capped
//   (WebAssembly memory maximum) and so is the process's JavaScript heap.
// - Nothing of the host's install: the interpreter's program name and environment are neutral,
//   JavaScript stacks and crash reports name files without their directories.
// - A fresh interpreter per call: the worker copies the ready interpreter's memory back after each
//   call, or ends when a call changed what that copy does not cover.
// - Warm pool: PYTHON_SANDBOX_PROCESSES processes (README.md, Configuration) are started at the first
//   Python call and replaced as they end, so the interpreter's start (1-2 s) is not a call's time.
import { type ChildProcess, fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { getPriority, setPriority } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HostEvents, type HostReply, type SandboxHost, type SandboxLimits, type SandboxOutcome, SandboxPool } from './pool.js';

export type PythonLimits = Pick<SandboxLimits, 'timeoutMs' | 'memoryBytes'>;

/** Time per call, and the interpreter's memory (its ready state takes about 55 MB of it). */
export const PYTHON_LIMITS: PythonLimits = { timeoutMs: 2_000, memoryBytes: 128 * 1024 * 1024 };

/** The JavaScript heap of a sandbox process, in MB (Pyodide's own objects; Python lives in the WebAssembly memory). */
const HEAP_MB = 192;

/** CPU time past the limit before the process is killed (IPC and the kill itself). */
const GRACE_MS = 50;

/** The sandbox processes' scheduling priority relative to the service (higher is lower; 19 at most). */
const NICENESS = 5;

/** The last bytes of a process's stderr, kept to explain a crash. */
const STDERR_TAIL = 4096;

/** Clock ticks per second of /proc's CPU times (USER_HZ, fixed at 100 in Linux's user ABI). */
const USER_HZ = 100;

/** The CPU time (user and system) process `pid` has used, in ms; undefined where /proc does not tell. */
async function processCpuMs(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

/** `text` with every absolute path cut to its file name: a crash report names nothing of the host's tree. */
function withoutDirectories(text: string): string {
  return text.replace(/(?:file:\/\/)?\/(?:[^\s/:'"()]+\/)+/g, '');
}

const workerPath = fileURLToPath(new URL('./pyodide-worker.mjs', import.meta.url));
const pyodideDir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));

/**
 * Pyodide's memory snapshot of a freshly loaded interpreter, made by the first process to start:
 * the later ones load from it in about a tenth of the time (docs/evaluators.md#python-sandbox).
 * The process's, like the pool: the same for every service.
 */
let interpreterSnapshot: Uint8Array | null = null;

function launchProcess(events: HostEvents): SandboxHost {
  const child: ChildProcess = fork(workerPath, [pyodideDir, String(PYTHON_LIMITS.memoryBytes)], {
    execArgv: [
      '--permission',
      `--allow-fs-read=${pyodideDir}`,
      `--allow-fs-read=${workerPath}`,
      '--disallow-code-generation-from-strings',
      `--max-old-space-size=${HEAP_MB}`,
    ],
    env: {},
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Structured clone, so the interpreter's snapshot (20 MB) travels as bytes.
    serialization: 'advanced',
  });
  // Below the service's priority: a guest that computes (or an interpreter starting) takes the
  // CPU the service leaves, so requests are answered first.
  try {
    if (child.pid !== undefined) setPriority(child.pid, Math.min(19, getPriority() + NICENESS));
  } catch {
    // the process already ended: its exit is reported below
  }
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  let ready = false;
  child.on('message', (message: HostReply | { ready: true } | { hello: true } | { snapshot: Uint8Array }) => {
    if ('hello' in message) child.send({ snapshot: interpreterSnapshot });
    // Taken only from a process that has not run any code yet: it is the freshly loaded interpreter.
    else if ('snapshot' in message) interpreterSnapshot ??= ready ? null : message.snapshot;
    else if ('ready' in message) {
      ready = true;
      events.ready();
    } else events.reply(message);
  });
  child.on('error', (error) => events.ended({ ok: false, kind: 'crash', message: error.message }));
  child.on('exit', (code, signal) => {
    if (/heap out of memory|Allocation failed/i.test(stderr)) return events.ended({ ok: false, kind: 'memory' });
    const lastLine = withoutDirectories(stderr.trim().split('\n').pop() ?? '');
    events.ended({ ok: false, kind: 'crash', message: `the sandbox process stopped (${signal ?? `exit code ${code}`})${lastLine ? `: ${lastLine}` : ''}` });
  });
  const setRef = (on: boolean) => {
    const handles = [child, child.channel, child.stderr] as ({ ref(): void; unref(): void } | null | undefined)[];
    for (const handle of handles) {
      if (on) handle?.ref();
      else handle?.unref();
    }
  };
  return {
    post: (job) => child.send({ id: job.id, code: job.code, args: job.args }),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return Promise.resolve();
    },
    cpuTimeMs: () => processCpuMs(child.pid),
    ref: () => setRef(true),
    unref: () => setRef(false),
  };
}

// The process's, not a service's (docs/architecture.md#state-lives-in-services), like the
// JavaScript sandbox's workers: sized once for the machine, holding no service's data, unref'd.
let pool: SandboxPool | undefined;
let poolSize = 2;

/** The number of sandbox processes (PYTHON_SANDBOX_PROCESSES); takes effect for a pool not yet started. */
export function setPythonPoolSize(size: number): void {
  poolSize = size;
}

/**
 * Runs `code`, which must define `evaluate(...)`, calling it with `args` (each a JSON-serialisable
 * value), and answers the number it returned or why it failed. Rejects only when `signal` aborts.
 */
export function runPython(code: string, args: unknown[], limits: PythonLimits = PYTHON_LIMITS, signal?: AbortSignal): Promise<SandboxOutcome> {
  pool ??= new SandboxPool({ size: poolSize, launch: launchProcess, graceMs: GRACE_MS, warm: true });
  return pool.run(
    code,
    args.map((arg) => JSON.stringify(arg ?? null)),
    limits,
    signal,
  );
}

/** Ends the sandbox processes (they are unref'd, so this is only needed to free them early). */
export async function closePython(): Promise<void> {
  await pool?.close();
  pool = undefined;
}
