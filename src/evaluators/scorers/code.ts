// auto_custom_code_run: the user's evaluate run in the runtime its config names: Python
// (../sandbox/python.ts, Pyodide in a locked-down process) or JavaScript (../sandbox/javascript.ts,
// QuickJS); its number is the score. Version 1 (the default) is called as
// evaluate(app_params, inputs, output, correct_answer), version 2 as Agenta's current one,
// evaluate(inputs, output, trace) with the case's spans as a tree (trace-tree.ts). Every failure
// is an error result saying what happened. Edge cases in ../scoring.ts.
import { result } from '../results.js';
import { SANDBOX_LIMITS, type SandboxLimits, type SandboxOutcome, runJavaScript } from '../sandbox/javascript.js';
import { WALL_CLOCK_FACTOR } from '../sandbox/pool.js';
import { PYTHON_LIMITS, type PythonLimits, runPython } from '../sandbox/python.js';
import { STORED_RUNTIME_DEFAULT } from '../registry.js';
import { type ScoringCase, type Scorer, ScoringFault, guarded, optionalGroundTruth, stringSetting } from './common.js';
import { traceTree } from './trace-tree.js';

/** The signature each version calls evaluate with (docs/evaluators.md#custom-code). */
export const CODE_SIGNATURES = { '1': 'evaluate(app_params, inputs, output, correct_answer)', '2': 'evaluate(inputs, output, trace)' } as const;
export type CodeVersion = keyof typeof CODE_SIGNATURES;

function where(outcome: { line?: number | null }): string {
  return outcome.line ? ` (line ${outcome.line})` : '';
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The message of a failed run, in words a user can act on. */
export function sandboxFailureMessage(outcome: Exclude<SandboxOutcome, { ok: true }>, limits: PythonLimits, version: CodeVersion = '1'): string {
  switch (outcome.kind) {
    case 'syntax':
      return `The code does not compile: ${outcome.message}${where(outcome)}`;
    case 'exception':
      return `The code threw ${outcome.message}${where(outcome)}`;
    case 'timeout':
      return `The code ran longer than ${seconds(limits.timeoutMs)} and was stopped`;
    case 'busy':
      return `The code did not finish within ${seconds(limits.timeoutMs * WALL_CLOCK_FACTOR)} and was stopped (it waited, or the machine was too busy to give it its ${seconds(limits.timeoutMs)} of CPU time)`;
    case 'memory':
      return `The code used more than ${limits.memoryBytes / (1024 * 1024)} MB of memory and was stopped`;
    case 'no_function':
      return `The code defines no function ${CODE_SIGNATURES[version]}`;
    case 'not_a_number':
      return `evaluate must return a number; it returned ${outcome.message}`;
    case 'pending':
      return 'evaluate returned a promise that never settled';
    case 'crash':
      return `The sandbox failed while running the code: ${outcome.message ?? 'unknown reason'}`;
  }
}

export function customCodeScorer(limits: { javascript: SandboxLimits; python: PythonLimits } = { javascript: SANDBOX_LIMITS, python: PYTHON_LIMITS }): Scorer {
  return guarded(async (settings, scoringCase, context) => {
    const code = stringSetting(settings, 'code');
    // A config stored before the runtime was recorded is JavaScript, the only runtime then
    // (docs/evaluators.md#custom-code); new configs store theirs.
    const runtime = settings.runtime ?? STORED_RUNTIME_DEFAULT;
    if (runtime !== 'javascript' && runtime !== 'python')
      throw new ScoringFault(`The runtime "${typeof runtime === 'string' ? runtime : JSON.stringify(runtime)}" is not offered; use "python" or "javascript"`);
    // A config stored without a version is version 1, as Agenta reads it.
    const version = settings.version ?? '1';
    if (version !== '1' && version !== '2')
      throw new ScoringFault(`The version ${JSON.stringify(version)} is not offered; use "1" or "2" (edit the evaluator configuration)`);
    const args = codeArguments(version, settings, scoringCase);
    const outcome =
      runtime === 'python' ? await runPython(code, args, limits.python, context.signal) : await runJavaScript(code, args, limits.javascript, context.signal);
    if (!outcome.ok) throw new ScoringFault(sandboxFailureMessage(outcome, limits[runtime], version));
    return result('number', outcome.value);
  });
}

/** What evaluate is called with: version 1's four arguments, version 2's three (the trace as a tree). */
function codeArguments(version: CodeVersion, settings: Record<string, unknown>, scoringCase: ScoringCase): unknown[] {
  if (version === '2') return [scoringCase.testcase, scoringCase.output ?? null, traceTree(scoringCase.trace ?? [])];
  return [scoringCase.appParams, scoringCase.testcase, scoringCase.output ?? null, optionalGroundTruth(settings, scoringCase) ?? null];
}

export const customCode = customCodeScorer();
