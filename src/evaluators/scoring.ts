// The scoring of the built-in evaluators that need no model (docs/evaluators.md),
// Agenta-compatible. The evaluation runner asks `getScorer(key)` for each evaluator config and
// calls the scorer for every test case; a scorer always resolves to a Result (never throws). The
// scorers live in ./scorers/, one file per family; this module is the entry point.
//
// Decisions on edge cases:
// - Ground truth (docs/evaluations.md#ground-truth): the column named by the `correct_answer_key`
//   setting (a "testcase." prefix dropped; a key that is only that prefix counts as unset), else
//   the evaluation's correct_answer_column, else "correct_answer". A column that is absent (or
//   undefined) gives the error 'The test case has no column "x" (columns: a, b, c)' for every
//   evaluator that compares with it; the webhook alone then sends `correct_answer: null`. A column
//   holding null is present.
// - Text form, of the output and of the ground truth: a string as is; null/undefined as ""; any
//   other value as its JSON (so the number 42 equals the text "42", true equals "true"). Texts are
//   normalised to Unicode NFC, so "é" typed as one code point or as e + combining accent is the
//   same text. Exact match does not trim whitespace: "42\n" is not "42".
// - Case-insensitive comparisons (regex always; starts/ends with and contains* when
//   case_sensitive is false) lower-case with String.prototype.toLowerCase (locale-independent).
// - auto_contains_json: an output that is a JSON object passes; otherwise its text passes when,
//   from some "{", the span up to the matching "}" (braces in JSON strings ignored) parses. A JSON
//   array alone does not count (`[1, 2]`), an array holding an object does. Searching stops (false)
//   after JSON_SEARCH_BUDGET characters of work, which only pathological outputs reach.
// - auto_similarity_match: words come from Unicode word segmentation (Intl.Segmenter, so CJK and
//   Thai are split into words), lower-cased; punctuation is dropped and emoji count as words.
//   Jaccard = |common| / |union|; two texts with no word at all have similarity 1. Passes when
//   similarity > similarity_threshold, strictly (0.5 at threshold 0.5 fails; threshold 1 never passes).
// - auto_regex_test: RE2 syntax and semantics (regex.ts, through re2js), case-insensitive unless
//   case_sensitive is set (Agenta's setting; off by default, as before it existed), on
//   Unicode code points; a search (not anchored unless the pattern says so), compared with
//   regex_should_match. Matching is linear in the text, so no pattern blocks the service; lookaround
//   and backreferences are refused when the config is saved (docs/evaluators.md). The compiled
//   pattern is kept for the run (ScoringContext.memo).
// - field_match_test: the output must be a JSON object, or a string that parses to one (surrounding
//   whitespace and one enclosing Markdown code fence such as ```json … ``` are allowed); else an
//   error. `json_field` is a top-level key; absent → error listing the fields. Equal when the texts
//   are equal (42 vs "42"), or, for a non-string field value, when it equals the ground truth read
//   as JSON ([1,2] vs "[1, 2]", key order ignored). The ground-truth column is checked first.
// - auto_json_diff: both sides must be JSON objects (strings are parsed, as above); else an error
//   naming the side. Flattened by path (nested objects and list items by index; empty objects and
//   lists are leaves; a key containing "." never collides with a nested key). Values match when
//   they are equal JSON (the number 1 does not match the string "1"); compare_schema_only: when of
//   the same JSON type (null, boolean, number, string, array, object). predict_keys: the output's
//   extra keys join the denominator. case_insensitive_keys: path segments are lower-cased (the first
//   of colliding keys wins). Nothing to compare (both {}) scores 1.
// - starts/ends with, contains: plain substring tests (an empty output never passes, as the
//   settings are non-empty). contains_any/all: `substrings` split on commas, trimmed, empty items dropped; none
//   left → error. Settings are used as stored, only NFC-normalised (and folded when case-insensitive).
// - auto_levenshtein_distance: distance in code points (an emoji with modifiers or a ZWJ sequence
//   is several code points, a CJK character or an accented letter in NFC is one); with `threshold`
//   set the result is bool, distance <= threshold (a fractional threshold works as its floor).
//   Pairs longer than LEVENSHTEIN_MAX_CELLS (length × length, after the common start and end) give
//   an error rather than blocking; the computation yields to the event loop and honours the signal.
// - auto_webhook_test: POST {inputs: testcase, output (as received, JSON), correct_answer (raw value
//   or null)}, 30 s timeout (WEBHOOK_TIMEOUT_MS) combined with the context's signal, redirects not
//   followed (reported with their target), replies read up to 1 MB. A 2xx JSON object with a finite
//   number `score` → number; anything else → an error naming the URL and an excerpt of the reply.
//   Timeouts, unreachable hosts and 408/429/5xx answers are transient: `isTransientError(result)`
//   tells a runner it may retry them.
// - Provider-backed evaluators call models through context.providers (src/providers/client.ts:
//   the evaluation's lm_providers_keys, else the server's environment; VARIANT_TIMEOUT_SECONDS per
//   attempt; rate_limit.max_retries on network errors, timeouts, 408/429/5xx, retry_delay apart,
//   Retry-After winning). A call that still fails is an error Result naming the provider's answer
//   (not retried again by the runner). The runner records each call as an EVALUATOR span.
// - auto_ai_critique: placeholders per template.ts ({prediction}/{variant_output}, {ground_truth}/
//   {correct_answer}, {inputs}, {<column>}; {{ }} literal); the ground truth is required only when
//   the template uses it. Sent at temperature 0. The score (parseJudgeScore): JSON number or
//   {"score": n} (code fence allowed); a reply that is a number alone ("8", "8/10", "**8**");
//   else the last labelled number ("Score: 7"); else the only number; else an error quoting the
//   reply. The number is returned as the judge gave it (the prompt sets the scale).
// - auto_semantic_similarity: one embeddings call with [output, ground truth] (text forms);
//   cosine similarity in [-1, 1]; an empty side, a zero vector or vectors of different lengths
//   give an error.
// - rag_*: paths per scorers/rag.ts resolvePath ("output[.field…]", "trace.<span>.<inputs|
//   outputs|internals>[.field…]", "[testcase.]<column>[.field…]"); absent or null → an error naming
//   the path. Contexts: a list (strings, or objects' content/page_content/text), a JSON text of a
//   list, or one text. The judge replies {"score": 0–1}; a score outside 0–1 is an error.
//   rag_context_relevancy does not read answer_key.
// - auto_custom_code_run: version "1" (the default; absent in a stored config) evaluate(app_params,
//   inputs = the whole test case, output, correct_answer = ground truth or null); version "2"
//   evaluate(inputs = the whole test case, output, trace = the case's spans as a tree, shaped in
//   scorers/trace-tree.ts; `{trace_id: null, spans: {}}` when the case has none); in the config's runtime (absent: javascript, a config
//   stored before runtimes were recorded). python: sandbox/python.ts (Pyodide in locked-down
//   child processes, PYTHON_LIMITS: 2 s, 128 MB; int/float/bool give a number, NaN/inf are
//   errors). javascript: sandbox/javascript.ts (QuickJS in WebAssembly, fresh instance per call,
//   SANDBOX_LIMITS: 2 s, 16 MB, 512 KB stack, on worker threads); may be async; must give a
//   finite number (booleans, numeric strings, NaN and Infinity are errors).
// - Settings were validated and completed when stored; a setting of the wrong type (a config
//   stored under an older template) gives an error naming it, not a crash. Expected faults give
//   error Results with stacktrace null; unexpected exceptions an error with their stack.
import type { Scorer } from './scorers/common.js';
import { fieldMatch, jsonDiff } from './scorers/json.js';
import { levenshtein } from './scorers/levenshtein.js';
import { containsAll, containsAny, contains, containsJson, endsWith, exactMatch, regexTest, similarityMatch, startsWith } from './scorers/text.js';
import { webhook } from './scorers/webhook.js';
import { customCode } from './scorers/code.js';
import { DEFAULT_JUDGE_MODEL, aiCritique } from './scorers/critique.js';
import { ragContextRelevancy, ragFaithfulness } from './scorers/rag.js';
import { DEFAULT_EMBEDDING_MODEL, semanticSimilarity } from './scorers/semantic.js';
import { getEvaluator } from './registry.js';
import { columnPlaceholders } from './template.js';

export type { ScoringCase, ScoringContext, Scorer, TraceSpanView } from './scorers/common.js';
export { groundTruthColumn, isTransientError } from './scorers/common.js';
export { JSON_SEARCH_BUDGET } from './scorers/text.js';
export { LEVENSHTEIN_MAX_CELLS } from './scorers/levenshtein.js';
export { WEBHOOK_MAX_REPLY_BYTES, WEBHOOK_TIMEOUT_MS } from './scorers/webhook.js';
export { spanView, traceTree } from './scorers/trace-tree.js';

const scorers: ReadonlyMap<string, Scorer> = new Map<string, Scorer>([
  ['auto_exact_match', exactMatch],
  ['auto_contains_json', containsJson],
  ['auto_similarity_match', similarityMatch],
  ['auto_regex_test', regexTest],
  ['field_match_test', fieldMatch],
  ['auto_json_diff', jsonDiff],
  ['auto_webhook_test', webhook],
  ['auto_starts_with', startsWith],
  ['auto_ends_with', endsWith],
  ['auto_contains', contains],
  ['auto_contains_any', containsAny],
  ['auto_contains_all', containsAll],
  ['auto_levenshtein_distance', levenshtein],
  ['auto_semantic_similarity', semanticSimilarity],
  ['auto_ai_critique', aiCritique],
  ['auto_custom_code_run', customCode],
  ['rag_faithfulness', ragFaithfulness],
  ['rag_context_relevancy', ragContextRelevancy],
]);

/** The scorer of a key, or undefined when this version cannot run that evaluator. */
export function getScorer(evaluatorKey: string): Scorer | undefined {
  return scorers.get(evaluatorKey);
}

/**
 * The model a config of a provider-backed evaluator calls (its `model` setting, else the
 * evaluator's default), or null for evaluators that call no provider. An evaluation is refused
 * (422 at lm_providers_keys) when that model's provider has no key.
 */
export function providerModelOf(evaluatorKey: string, settings: Record<string, unknown>): string | null {
  if (!getEvaluator(evaluatorKey)?.requires_llm_api_keys) return null;
  const model = settings.model;
  if (typeof model === 'string' && model.trim() !== '') return model.trim();
  return evaluatorKey === 'auto_semantic_similarity' ? DEFAULT_EMBEDDING_MODEL : DEFAULT_JUDGE_MODEL;
}

/**
 * The test set columns a config needs present when an evaluation is created: an AI critique's
 * `{<column>}` placeholders. (Ground truth columns and RAG paths stay run-time errors per case,
 * like every other evaluator's missing column: a test set may fill them on some rows only.)
 */
export function requiredColumns(evaluatorKey: string, settings: Record<string, unknown>): string[] {
  if (evaluatorKey !== 'auto_ai_critique' || !Array.isArray(settings.prompt_template)) return [];
  const columns = new Set<string>();
  for (const message of settings.prompt_template as { content?: unknown }[]) {
    if (typeof message?.content !== 'string') continue;
    try {
      for (const column of columnPlaceholders(message.content)) columns.add(column);
    } catch {
      // a template that does not parse is reported per case
    }
  }
  return [...columns];
}
