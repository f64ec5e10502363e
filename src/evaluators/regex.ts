// Users' regular expressions (auto_regex_test) run on RE2, through re2js (a JavaScript port):
// matching takes time linear in the text, so no pattern can stall the service the way a
// backtracking engine does on `^(a+)+$`. RE2 has no lookaround and no backreferences; such
// patterns are refused when the config is saved. The decision and its figures: docs/evaluators.md.
import { RE2JS, RE2JSSyntaxException } from 're2js';
import { ScoringFault } from './scorers/common.js';

export type Pattern = RE2JS;

/**
 * A pattern RE2 does not accept, with a message a user can act on: a 422 when a config is saved,
 * an error result (a ScoringFault) when a config stored earlier runs.
 */
export class PatternSyntaxError extends ScoringFault {
  override name = 'PatternSyntaxError';
}

const linear = 'patterns run on RE2, in time linear in the text (docs/evaluators.md)';

/** What a user should read for RE2's complaint about `fragment` (the part of the pattern it names). */
function explain(description: string, fragment: string, pattern: string): string {
  if (/^\(\?<?[=!]/.test(fragment)) {
    return `lookahead and lookbehind ("${fragment.slice(0, fragment.startsWith('(?<') ? 4 : 3)}…)") are not supported: ${linear}`;
  }
  // RE2 names only "(?P" of a Python backreference "(?P=name)".
  const backreference = /^\\[1-9k]/.test(fragment) ? fragment : fragment === '(?P' && pattern.includes('(?P=') ? '(?P=…)' : null;
  if (backreference) return `backreferences ("${backreference}") are not supported: ${linear}`;
  if (fragment === '\\Z') return 'invalid escape sequence "\\Z": write "\\z" for the end of the text';
  return `${description}: "${fragment}"`;
}

/** The pattern compiled (case-insensitively unless asked otherwise, as auto_regex_test searches), or a PatternSyntaxError. */
export function compilePattern(pattern: string, caseSensitive = false): Pattern {
  try {
    return RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    if (!(error instanceof RE2JSSyntaxException)) throw error;
    // re2js applies CASE_INSENSITIVE by prefixing "(?i)", which shows in the fragment it names.
    let fragment = error.getPattern() ?? pattern;
    if (fragment.startsWith('(?i)') && !pattern.includes(fragment)) fragment = fragment.slice(4);
    throw new PatternSyntaxError(`Invalid regular expression: ${explain(error.getDescription(), fragment, pattern)}`);
  }
}

/** Whether the pattern matches somewhere in `text` (a search, anchored only where the pattern says). */
export function searches(pattern: Pattern, text: string): boolean {
  // test() asks for no capture groups, so re2js can run its DFA (about 10 ns a character).
  return pattern.test(text);
}
