// What every scorer shares: the scoring interface, the reading of settings and of the ground
// truth (docs/evaluations.md#ground-truth), the text form of values, JSON parsing of outputs, and
// the guard that turns any fault into a Result so a scorer never throws. The decisions behind them
// are listed in ../scoring.ts.
import type { Dispatcher } from 'undici';
import { type Result, errorResult } from '../results.js';
import { excerpt } from '../../shared/errors.js';
import type { ProviderClient } from '../../providers/client.js';

export interface ScoringCase {
  /** The test case: the test set row, column → value (values may be strings, numbers, booleans, objects). */
  testcase: Record<string, unknown>;
  /** The variant's output: a string, or a JSON value when the variant answered JSON. */
  output: unknown;
  /** The evaluation's `correct_answer_column`, or null. */
  correctAnswerColumn: string | null;
  /** The variant revision's parameters (custom code gets them as `app_params`). */
  appParams: Record<string, unknown>;
  /** The spans of the case's trace known when scoring, earliest first (RAG evaluators read paths into them). */
  trace?: TraceSpanView[];
}

/**
 * What evaluators read of a span of the case's trace: a trace path
 * (`trace.<span name>.<inputs|outputs|internals>.…`) its name and data, a version 2 code
 * evaluator the rest too (trace-tree.ts).
 */
export interface TraceSpanView {
  /** The span's id and its parent's, which Agenta's paths (`rag.retriever.internals.…`) follow. */
  id: string;
  parentId: string | null;
  name: string;
  inputs: unknown;
  outputs: unknown;
  internals: unknown;
  traceId?: string;
  kind?: string;
  status?: string;
  statusMessage?: string | null;
  startNs?: bigint;
  endNs?: bigint;
  /** The span's attributes as stored (OTLP's keys). */
  attributes?: unknown;
  model?: string | null;
  tokens?: { prompt: number | null; completion: number | null; total: number | null };
  /** USD. */
  cost?: number | null;
}

export interface ScoringContext {
  signal: AbortSignal;
  /**
   * Model provider calls (LLM judges, embeddings) bound to the evaluation's keys, time limit and
   * retries; the runner traces each call (spans of kind EVALUATOR) and counts its cost apart from
   * the app's. Absent where no provider may be called: evaluators that need one then give an error.
   */
  providers?: ProviderClient;
  /**
   * What scorers derive from their settings (a compiled pattern), kept for the cases of one run;
   * the runner gives one Map per run. Absent, everything is derived again for each case.
   */
  memo?: Map<string, unknown>;
  /**
   * The service's outbound dispatcher (`Services.outbound`), which checks the addresses a webhook
   * may reach (docs/access.md#outbound-calls). Absent (scorers run alone), calls go out unchecked.
   */
  dispatcher?: Dispatcher;
}

/** `make()`, once per run for each key (see ScoringContext.memo); a value that throws is not kept. */
export function perRun<T>(context: ScoringContext, key: string, make: () => T): T {
  if (!context.memo) return make();
  if (!context.memo.has(key)) context.memo.set(key, make());
  return context.memo.get(key) as T;
}

export type Scorer = (settings: Record<string, unknown>, scoringCase: ScoringCase, context: ScoringContext) => Promise<Result>;

/**
 * A fault the user can act on (a missing column, an output that is not JSON, a webhook that
 * answered 500): it becomes an error Result with its message and no stack trace.
 */
export class ScoringFault extends Error {
  override name = 'ScoringFault';
  /** The cause may pass (a timeout, a network error, a 5xx): another try may succeed. */
  readonly transient: boolean;

  constructor(message: string, options: { cause?: unknown; transient?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.transient = options.transient ?? false;
  }
}

/** Marks Results by identity (held weakly): a property of each Result, not a cache or a service's state. */
const transientResults = new WeakSet<Result>();

/**
 * Whether an error Result came from a fault that may pass (a webhook that timed out, could not
 * be reached, or answered 408/429/5xx), so a runner applying rate_limit.max_retries may try again.
 */
export function isTransientError(scored: Result): boolean {
  return transientResults.has(scored);
}

/**
 * Wraps a scorer body so that it always resolves to a Result: a ScoringFault becomes an error
 * Result without a stack, anything else (a bug, a value of an unforeseen shape) one with it.
 */
export function guarded(score: (settings: Record<string, unknown>, scoringCase: ScoringCase, context: ScoringContext) => Result | Promise<Result>): Scorer {
  return async (settings, scoringCase, context) => {
    try {
      return await score(settings, scoringCase, context);
    } catch (error) {
      if (error instanceof ScoringFault) {
        const failed = errorResult(error.message);
        if (error.transient) transientResults.add(failed);
        return failed;
      }
      const message = error instanceof Error ? error.message : String(error);
      const stack = error instanceof Error && error.stack ? error.stack : null;
      return errorResult(`The evaluator failed unexpectedly: ${message}`, stack);
    }
  };
}

// Settings. They were validated and completed when the config was stored (inputs.ts), so a wrong
// type here means a config stored before a template changed: a fault, not a crash.

export function stringSetting(settings: Record<string, unknown>, key: string): string {
  const value = settings[key];
  if (typeof value !== 'string' || value === '') {
    throw new ScoringFault(`The evaluator setting "${key}" is missing; edit the evaluator configuration to set it`);
  }
  return value;
}

export function booleanSetting(settings: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const value = settings[key];
  return typeof value === 'boolean' ? value : fallback;
}

/** A number setting, or null when unset. */
export function numberSetting(settings: Record<string, unknown>, key: string): number | null {
  const value = settings[key];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ScoringFault(`The evaluator setting "${key}" must be a number (it is ${excerpt(JSON.stringify(value) ?? typeof value)})`);
  }
  return value;
}

// Ground truth.

const testcasePrefix = 'testcase.';

/** Where the ground truth is read (docs/evaluations.md#ground-truth): settings.correct_answer_key with a "testcase." prefix dropped; else correctAnswerColumn; else "correct_answer". */
export function groundTruthColumn(settings: Record<string, unknown>, correctAnswerColumn: string | null): string {
  const key = settings.correct_answer_key;
  if (typeof key === 'string') {
    const column = key.startsWith(testcasePrefix) ? key.slice(testcasePrefix.length) : key;
    if (column !== '') return column;
  }
  if (typeof correctAnswerColumn === 'string' && correctAnswerColumn !== '') return correctAnswerColumn;
  return 'correct_answer';
}

function hasColumn(testcase: Record<string, unknown>, column: string): boolean {
  return Object.hasOwn(testcase, column) && testcase[column] !== undefined;
}

const listedColumns = 30;

/** The message of a test case lacking `column`, listing the columns it has. */
export function missingColumnMessage(testcase: Record<string, unknown>, column: string): string {
  const columns = Object.keys(testcase);
  const shown = columns.slice(0, listedColumns).join(', ');
  const more = columns.length > listedColumns ? `, … ${columns.length - listedColumns} more` : '';
  return `The test case has no column "${column}" (columns: ${columns.length ? shown + more : 'none'})`;
}

/** The ground truth value, as stored in the test case; a ScoringFault when the column is missing. */
export function requireGroundTruth(settings: Record<string, unknown>, scoringCase: ScoringCase): unknown {
  const column = groundTruthColumn(settings, scoringCase.correctAnswerColumn);
  if (!hasColumn(scoringCase.testcase, column)) throw new ScoringFault(missingColumnMessage(scoringCase.testcase, column));
  return scoringCase.testcase[column];
}

/** The ground truth value, or null when the column is missing (for evaluators that pass it on). */
export function optionalGroundTruth(settings: Record<string, unknown>, scoringCase: ScoringCase): unknown {
  const column = groundTruthColumn(settings, scoringCase.correctAnswerColumn);
  return hasColumn(scoringCase.testcase, column) ? scoringCase.testcase[column] : null;
}

// Text.

/**
 * The text form of an output or a ground truth: a string as is; null and undefined as "" (an
 * empty cell); any other value as its JSON (42 → "42", true → "true", {"a":1} → '{"a":1}').
 * Normalised to NFC, so that an accent typed as one code point or as letter + combining mark
 * compares equal.
 */
export function toText(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === null || value === undefined) text = '';
  else text = JSON.stringify(value) ?? typeof value;
  return text.normalize('NFC');
}

// JSON.

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A whole text wrapped in one Markdown code fence (```json … ```), as models often answer. */
const fenced = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * A value as a JSON object: an object as is; a string parsed as JSON (surrounding whitespace and
 * one enclosing Markdown code fence allowed). Otherwise a ScoringFault naming `what`.
 */
export function asJsonObject(value: unknown, what: string): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  if (typeof value !== 'string') {
    throw new ScoringFault(`${what} is not a JSON object: ${excerpt(toText(value)) || '(empty)'}`);
  }
  const trimmed = value.trim();
  const body = fenced.exec(trimmed)?.[1] ?? trimmed;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ScoringFault(`${what} is not valid JSON: ${excerpt(value) || '(empty)'}`);
  }
  if (!isPlainObject(parsed)) throw new ScoringFault(`${what} is JSON but not an object: ${excerpt(body)}`);
  return parsed;
}
