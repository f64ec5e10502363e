// What an online evaluator gets from its target (docs/online-evaluation.md#mapping): the target's
// document, and the JSONPaths of a rule's mapping read in it. Paths are the subset the rule input
// accepts (inputs.ts): `$`, `.key`, `['key']` and `[index]`.
import { parseJsonPath, readJsonPath } from '../shared/json-path.js';
import type { RuleMapping } from './inputs.js';

/** The value at `path` in `document`, or undefined where the path leads nowhere (or is not in the subset). */
export function readPath(document: unknown, path: string): unknown {
  const segments = parseJsonPath(path);
  return typeof segments === 'string' ? undefined : readJsonPath(document, segments);
}

/** What a target is, as mappings read it: its input, output, metadata and attributes, and for a trace or session its parts. */
export interface TargetDocument {
  input: unknown;
  output: unknown;
  metadata: unknown;
  attributes: unknown;
  /** A trace's spans (earliest first); a session's traces' spans. */
  spans: unknown[];
  /** A session's traces as {trace_id, input, output}, in order; a trace alone for a trace target. */
  traces: unknown[];
}

export interface EvaluatorVariables {
  /** The evaluator's `inputs` (a test case's columns): an object. */
  inputs: Record<string, unknown>;
  output: unknown;
  /** The expected answer, when the mapping names one. */
  expected: unknown;
}

function asInputs(value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return value === undefined || value === null ? {} : { input: value };
}

/** The variables sent to the evaluator: the mapping's paths, else the target's input and output. */
export function evaluatorVariables(document: TargetDocument, mapping: RuleMapping | null): EvaluatorVariables {
  return {
    inputs: asInputs(mapping?.inputs ? readPath(document, mapping.inputs) : document.input),
    output: mapping?.output ? readPath(document, mapping.output) : document.output,
    expected: mapping?.expected ? readPath(document, mapping.expected) : undefined,
  };
}
