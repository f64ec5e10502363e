// Test helpers of the scorers: run an evaluator the way the runner will, with settings completed
// by the evaluator's own settings schema (as they are stored), on a case with defaults.
import { expect } from 'vitest';
import type { Result } from '../../src/evaluators/results.js';
import { evaluatorSettingsSchema } from '../../src/evaluators/inputs.js';
import { type ScoringCase, type ScoringContext, getScorer } from '../../src/evaluators/scoring.js';

export type CaseInput = Partial<ScoringCase> & { output: unknown };

/** The settings as stored: validated against the evaluator's template, defaults filled in. */
export function storedSettings(key: string, settings: Record<string, unknown> = {}): Record<string, unknown> {
  return evaluatorSettingsSchema(key)!.parse(settings);
}

export function scoringCase(input: CaseInput): ScoringCase {
  return { testcase: {}, correctAnswerColumn: null, appParams: {}, ...input };
}

export function context(signal: AbortSignal = new AbortController().signal): ScoringContext {
  return { signal };
}

/** Runs evaluator `key` with `settings` (completed as stored) on a case. */
export async function score(key: string, settings: Record<string, unknown>, input: CaseInput, scoringContext: ScoringContext = context()): Promise<Result> {
  const scorer = getScorer(key);
  if (!scorer) throw new Error(`no scorer for ${key}`);
  return scorer(storedSettings(key, settings), scoringCase(input), scoringContext);
}

/** The value of a successful Result of `type`; fails the test on an error Result. */
export async function valueOf(type: 'bool' | 'number', pending: Promise<Result>): Promise<unknown> {
  const scored = await pending;
  expect(scored.error, JSON.stringify(scored.error)).toBeNull();
  expect(scored.type).toBe(type);
  return scored.value;
}

/** The message of an expected-fault Result (no stack trace); fails the test otherwise. */
export async function faultOf(pending: Promise<Result>): Promise<string> {
  const scored = await pending;
  expect(scored.type).toBe('error');
  expect(scored.value).toBeNull();
  expect(scored.error?.stacktrace).toBeNull();
  return scored.error!.message;
}
