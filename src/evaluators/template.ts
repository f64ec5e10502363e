// Placeholders of judge prompt templates (auto_ai_critique's `prompt_template`).
//
// The rule (Python str.format's, which Agenta's evaluators used, checked when the config is saved
// rather than failing at run time):
// - `{name}` is a placeholder. A name starts with a letter or "_" and goes on with letters,
//   digits, "_", "-", "." or inner spaces (so a CSV column such as "user question" can be named).
// - `{{` and `}}` are a literal "{" and "}" (write `{{"score": 8}}` to show JSON).
// - Any other brace is a fault reported when the config is created or updated: a "{" whose
//   content is not a name (`{"score": 8}`, `{}`, `{ x }`), a "{" never closed, a lone "}".
// - Reserved names are filled by the evaluator: {prediction} (alias {variant_output}) the
//   variant's output, {ground_truth} (alias {correct_answer}) the expected answer, {inputs} the
//   test case's columns other than the expected answer, as JSON. Every other name is a test set
//   column, checked against the test set's columns when an evaluation is created (422 naming it).
// - Values are inserted as text: a string as is, anything else as its JSON.

export const RESERVED_PLACEHOLDERS = ['prediction', 'variant_output', 'ground_truth', 'correct_answer', 'inputs'] as const;
export type ReservedPlaceholder = (typeof RESERVED_PLACEHOLDERS)[number];

const NAME = /^[\p{L}_](?:[\p{L}\p{N}_.\- ]*[\p{L}\p{N}_.-])?$/u;

export type TemplatePart = { text: string } | { placeholder: string };

export class TemplateSyntaxError extends Error {
  override name = 'TemplateSyntaxError';
}

function excerpt(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** The template as literal texts and placeholders; a TemplateSyntaxError says what is wrong. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let index = 0;
  while (index < template.length) {
    const char = template[index];
    if (char === '{' && template[index + 1] === '{') {
      text += '{';
      index += 2;
    } else if (char === '}' && template[index + 1] === '}') {
      text += '}';
      index += 2;
    } else if (char === '}') {
      throw new TemplateSyntaxError(`Single "}" at character ${index}: write "}}" for a literal brace (placeholders are {name}, literal braces are doubled)`);
    } else if (char === '{') {
      const close = template.indexOf('}', index + 1);
      const open = template.indexOf('{', index + 1);
      if (close === -1 || (open !== -1 && open < close)) {
        throw new TemplateSyntaxError(
          `Unclosed "{" at character ${index} ("${excerpt(template.slice(index))}"): close the placeholder with "}", or write "{{" for a literal brace`,
        );
      }
      const name = template.slice(index + 1, close);
      if (!NAME.test(name)) {
        throw new TemplateSyntaxError(
          `Invalid placeholder {${excerpt(name)}}: a placeholder is {name} (a test set column, or one of ${RESERVED_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}); write {{ and }} for literal braces, e.g. {{"score": 8}}`,
        );
      }
      if (text) parts.push({ text });
      text = '';
      parts.push({ placeholder: name });
      index = close + 1;
    } else {
      text += char;
      index += 1;
    }
  }
  if (text) parts.push({ text });
  return parts;
}

/** The placeholder names of a template, in order of first use (the template must parse). */
export function placeholdersOf(template: string): string[] {
  const names = new Set<string>();
  for (const part of parseTemplate(template)) if ('placeholder' in part) names.add(part.placeholder);
  return [...names];
}

export function isReserved(name: string): name is ReservedPlaceholder {
  return (RESERVED_PLACEHOLDERS as readonly string[]).includes(name);
}

/** The test set columns a template names (its placeholders that are not reserved). */
export function columnPlaceholders(template: string): string[] {
  return placeholdersOf(template).filter((name) => !isReserved(name));
}

/** Fills the template; `value(name)` gives each placeholder's text. */
export function renderTemplate(template: string, value: (name: string) => string): string {
  return parseTemplate(template)
    .map((part) => ('text' in part ? part.text : value(part.placeholder)))
    .join('');
}
