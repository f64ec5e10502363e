// The Levenshtein evaluator: the edit distance between the output and the ground truth, counted
// in Unicode code points (an emoji or a CJK character is one edit, not two UTF-16 units). Edge
// cases are listed in ../scoring.ts.
import { type Result, result } from '../results.js';
import { ScoringFault, guarded, numberSetting, requireGroundTruth, toText } from './common.js';

/**
 * The most cells (length × length, after the common start and end are set aside) computed for one
 * pair: about 1.5 s of work, done in slices that let other work run. Longer pairs give an error.
 */
export const LEVENSHTEIN_MAX_CELLS = 250_000_000;

/** Cells computed between two yields to the event loop. */
const cellsPerSlice = 2_000_000;

function codePoints(text: string): Int32Array {
  const points = new Int32Array(text.length);
  let count = 0;
  for (const char of text) points[count++] = char.codePointAt(0)!;
  return points.subarray(0, count);
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface DistanceOptions {
  /** Stop counting past this distance: the answer is then `max + 1` ("more than max"). */
  max?: number;
  signal?: AbortSignal;
  maxCells?: number;
}

/**
 * The Levenshtein distance (insertions, deletions and substitutions of one code point each).
 * With `max`, a distance above it is reported as `max + 1` as soon as that is certain.
 */
export async function levenshteinDistance(a: string, b: string, options: DistanceOptions = {}): Promise<number> {
  let x = codePoints(a);
  let y = codePoints(b);
  // The common start and end cost nothing.
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  x = x.subarray(start, endX);
  y = y.subarray(start, endY);
  if (x.length > y.length) [x, y] = [y, x];
  const { max } = options;
  const over = max === undefined ? Infinity : Math.floor(max) + 1;
  if (y.length - x.length >= over) return over;
  if (x.length === 0) return y.length;

  const maxCells = options.maxCells ?? LEVENSHTEIN_MAX_CELLS;
  if (x.length * y.length > maxCells) {
    throw new ScoringFault(
      `The output and the expected answer are too long to compare by edit distance (${x.length} × ${y.length} characters ` +
        `once their common start and end are set aside; the limit is ${maxCells.toLocaleString('en-US')})`,
    );
  }

  // One row per code point of y, over the (shorter) x.
  let previous = new Uint32Array(x.length + 1);
  let current = new Uint32Array(x.length + 1);
  for (let i = 0; i <= x.length; i++) previous[i] = i;
  const rowsPerSlice = Math.max(1, Math.floor(cellsPerSlice / x.length));
  for (let j = 1; j <= y.length; j++) {
    if (j % rowsPerSlice === 0) {
      await yieldToEventLoop();
      if (options.signal?.aborted) throw new ScoringFault('The edit distance computation was cancelled');
    }
    const char = y[j - 1];
    current[0] = j;
    let rowMin = j;
    for (let i = 1; i <= x.length; i++) {
      let cost = previous[i - 1] + (x[i - 1] === char ? 0 : 1);
      const deletion = previous[i] + 1;
      if (deletion < cost) cost = deletion;
      const insertion = current[i - 1] + 1;
      if (insertion < cost) cost = insertion;
      current[i] = cost;
      if (cost < rowMin) rowMin = cost;
    }
    // Every later row is at least this row's minimum.
    if (rowMin >= over) return over;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[x.length], over);
}

export const levenshtein = guarded(async (settings, scoringCase, context): Promise<Result> => {
  const threshold = numberSetting(settings, 'threshold');
  const truth = toText(requireGroundTruth(settings, scoringCase));
  const output = toText(scoringCase.output);
  if (threshold === null) {
    return result('number', await levenshteinDistance(output, truth, { signal: context.signal }));
  }
  const distance = await levenshteinDistance(output, truth, { max: threshold, signal: context.signal });
  return result('bool', distance <= threshold);
});
