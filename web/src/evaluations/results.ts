// How an evaluation's typed Results read on screen (docs/contract.md 2.2: status, text, json,
// bool, number, cost, latency or error), and where a refused input's faults go in a form.

/** A Result as the evaluation queries select it. */
export interface ResultValue {
  readonly type: string;
  readonly value?: unknown;
  readonly error?: { readonly message: string } | null;
}

/** The text of an output or a score: JSON pretty-printed, an error as `Error: <message>`. */
export function resultText(result: ResultValue | null | undefined): string {
  if (!result) return '';
  if (result.type === 'error') return `Error: ${result.error?.message ?? 'unknown'}`;
  if (typeof result.value === 'string') return result.value;
  if (result.value == null) return '';
  if (result.type === 'json') return JSON.stringify(result.value, null, 2);
  if (typeof result.value === 'number' || typeof result.value === 'boolean') return String(result.value);
  return JSON.stringify(result.value);
}

/** A score as a number to compare (pass 1, fail 0); null for an error or anything else. */
export function scoreOf(result: ResultValue | null | undefined): number | null {
  if (!result) return null;
  if (result.type === 'bool' && typeof result.value === 'boolean') return result.value ? 1 : 0;
  if (result.type === 'number' && typeof result.value === 'number') return result.value;
  return null;
}

/** A score for a table cell: ✓ pass / ✗ fail, a number to three places, or the error. */
export function scoreText(result: ResultValue | null | undefined): string {
  if (!result) return '–';
  if (result.type === 'bool') return result.value ? 'pass' : 'fail';
  if (result.type === 'number' && typeof result.value === 'number') return Number.isInteger(result.value) ? String(result.value) : result.value.toFixed(3);
  return resultText(result);
}

/** `[{name, value}]` or `[{key, value}]` (a scenario's inputs and ground truth) as `name: value` lines. */
export function pairsText(pairs: unknown): string {
  if (!Array.isArray(pairs)) return '';
  return pairs
    .map((pair: { name?: unknown; key?: unknown; value?: unknown }) => {
      const value = typeof pair.value === 'string' ? pair.value : JSON.stringify(pair.value);
      const label = typeof pair.name === 'string' ? pair.name : typeof pair.key === 'string' ? pair.key : '';
      return `${label}: ${value}`;
    })
    .join('\n');
}

/** The ground truth: its value alone when there is one column (the usual case), else `key: value` lines. */
export function answerText(pairs: unknown): string {
  if (Array.isArray(pairs) && pairs.length === 1) return pairsText(pairs).replace(/^[^:]*: /, '');
  return pairsText(pairs);
}

/** Statuses after which a run changes no more (docs/evaluations.md#status-and-its-transitions). */
export const finalStatuses = new Set([
  'EVALUATION_FINISHED',
  'EVALUATION_FINISHED_WITH_ERRORS',
  'EVALUATION_FAILED',
  'EVALUATION_AGGREGATION_FAILED',
  'EVALUATION_CANCELLED',
]);

/** `EVALUATION_FINISHED_WITH_ERRORS` → "finished with errors". */
export function statusLabel(status: string): string {
  return status
    .replace(/^EVALUATION_/, '')
    .toLowerCase()
    .replace(/_/g, ' ');
}
