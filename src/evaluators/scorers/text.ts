// The text evaluators: exact match, contains JSON, similarity (Jaccard of word sets), regex,
// starts/ends with, contains, contains any/all. All compare the text form of the output
// (common.ts `toText`); their edge cases are listed in ../scoring.ts.
import { type Result, result } from '../results.js';
import { ScoringFault, booleanSetting, guarded, isPlainObject, numberSetting, perRun, requireGroundTruth, stringSetting, toText } from './common.js';
import { compilePattern, searches } from '../regex.js';

export const exactMatch = guarded((settings, scoringCase): Result => {
  const truth = toText(requireGroundTruth(settings, scoringCase));
  return result('bool', toText(scoringCase.output) === truth);
});

// Contains JSON.

/** The most characters the search for a JSON object scans (and parses) in one output. */
export const JSON_SEARCH_BUDGET = 5_000_000;

/**
 * Whether `text` contains a JSON object: from each "{" the span up to its matching "}" (braces
 * inside JSON strings ignored) is parsed; the first that parses answers true. A span that does not
 * parse is skipped and the search goes on from the next "{" (which may be inside it), so
 * `{not json {"a": 1}}` counts. Gives up (false) past JSON_SEARCH_BUDGET characters of work.
 */
export function containsJsonObject(text: string, budget = JSON_SEARCH_BUDGET): boolean {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = start; i < text.length; i++) {
      if (--budget < 0) return false;
      const code = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (code === 0x5c /* \ */) escaped = true;
        else if (code === 0x22 /* " */) inString = false;
        continue;
      }
      if (code === 0x22) inString = true;
      else if (code === 0x7b /* { */) depth++;
      else if (code === 0x7d /* } */ && --depth === 0) {
        budget -= i - start;
        try {
          JSON.parse(text.slice(start, i + 1));
          return true;
        } catch {
          break;
        }
      }
    }
  }
  return false;
}

export const containsJson = guarded((_settings, scoringCase): Result => {
  const { output } = scoringCase;
  return result('bool', isPlainObject(output) || containsJsonObject(toText(output)));
});

// Similarity.

const wordSegmenter = new Intl.Segmenter('und', { granularity: 'word' });
const pictographic = /\p{Extended_Pictographic}/u;

/**
 * The set of words of a text, lower-cased: Unicode word segmentation (UAX #29 with the ICU
 * dictionaries, so Chinese, Japanese or Thai without spaces split into words too); punctuation
 * and spaces are dropped, emoji count as words.
 */
export function wordSet(text: string): Set<string> {
  const words = new Set<string>();
  for (const { segment, isWordLike } of wordSegmenter.segment(text.toLowerCase())) {
    if (isWordLike || pictographic.test(segment)) words.add(segment);
  }
  return words;
}

/** |A ∩ B| / |A ∪ B|; two texts without any word are alike (1). */
export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let common = 0;
  for (const word of a) if (b.has(word)) common++;
  return common / (a.size + b.size - common);
}

export const similarityMatch = guarded((settings, scoringCase): Result => {
  const threshold = numberSetting(settings, 'similarity_threshold') ?? 0.5;
  const truth = toText(requireGroundTruth(settings, scoringCase));
  const similarity = jaccard(wordSet(toText(scoringCase.output)), wordSet(truth));
  return result('bool', similarity > threshold);
});

// Regex.

export const regexTest = guarded((settings, scoringCase, context): Result => {
  // A PatternSyntaxError is a ScoringFault: a config stored before the engine changed may not compile.
  const source = stringSetting(settings, 'regex_pattern');
  // Configs saved before the setting existed search case-insensitively, as they always did.
  const caseSensitive = booleanSetting(settings, 'case_sensitive', false);
  const pattern = perRun(context, `regex_pattern ${caseSensitive} ${source}`, () => compilePattern(source, caseSensitive));
  const shouldMatch = booleanSetting(settings, 'regex_should_match', true);
  return result('bool', searches(pattern, toText(scoringCase.output)) === shouldMatch);
});

// Starts with, ends with, contains.

function fold(text: string, caseSensitive: boolean): string {
  return caseSensitive ? text : text.toLowerCase();
}

/** A text setting and the output, both NFC and folded as `case_sensitive` says. */
function operands(settings: Record<string, unknown>, key: string, output: unknown): [string, string] {
  const caseSensitive = booleanSetting(settings, 'case_sensitive', true);
  return [fold(toText(output), caseSensitive), fold(toText(stringSetting(settings, key)), caseSensitive)];
}

export const startsWith = guarded((settings, scoringCase): Result => {
  const [output, prefix] = operands(settings, 'prefix', scoringCase.output);
  return result('bool', output.startsWith(prefix));
});

export const endsWith = guarded((settings, scoringCase): Result => {
  const [output, suffix] = operands(settings, 'suffix', scoringCase.output);
  return result('bool', output.endsWith(suffix));
});

export const contains = guarded((settings, scoringCase): Result => {
  const [output, substring] = operands(settings, 'substring', scoringCase.output);
  return result('bool', output.includes(substring));
});

/** The `substrings` setting split on commas, each trimmed, empty ones dropped. */
export function splitSubstrings(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function substringList(settings: Record<string, unknown>, output: unknown): [string, string[]] {
  const [text, list] = operands(settings, 'substrings', output);
  const substrings = splitSubstrings(list);
  if (substrings.length === 0) {
    throw new ScoringFault(
      `The evaluator setting "substrings" lists no substring (it is "${typeof settings.substrings === 'string' ? settings.substrings : JSON.stringify(settings.substrings)}"); give substrings separated by commas`,
    );
  }
  return [text, substrings];
}

export const containsAny = guarded((settings, scoringCase): Result => {
  const [output, substrings] = substringList(settings, scoringCase.output);
  return result(
    'bool',
    substrings.some((substring) => output.includes(substring)),
  );
});

export const containsAll = guarded((settings, scoringCase): Result => {
  const [output, substrings] = substringList(settings, scoringCase.output);
  return result(
    'bool',
    substrings.every((substring) => output.includes(substring)),
  );
});
