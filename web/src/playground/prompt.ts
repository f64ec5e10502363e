// What the playground reads from a prompt (docs/playground.md): the names of its placeholders, as
// the server fills them (`{{variable}}` and `{column}`), and variables taken from a test case or a
// trace's input.

export interface PromptMessage {
  role: string;
  content: string;
}

const placeholder = /\{\{\s*([^{}\s]+)\s*\}\}|\{([^{}\s]+)\}/g;

/** The placeholders' names in the messages, each once, in the order they first appear. */
export function placeholders(messages: readonly PromptMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages) for (const match of message.content.matchAll(placeholder)) names.add(match[1] ?? match[2]);
  return [...names];
}

/** A value as a variable's text field shows it: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The variables `source` gives for `names`: its fields of those names (a test case's columns, a
 * trace's input object), or, when it is a single value and one variable is asked, that value.
 */
export function variablesFrom(source: unknown, names: readonly string[]): Record<string, string> {
  if (source !== null && typeof source === 'object' && !Array.isArray(source)) {
    const fields = source as Record<string, unknown>;
    // A trace's input is often `{inputs: {...}}` (Assay's JSON spans) or the variables themselves.
    const inner =
      fields.inputs !== null && typeof fields.inputs === 'object' && !Array.isArray(fields.inputs) ? (fields.inputs as Record<string, unknown>) : null;
    const found: Record<string, string> = {};
    for (const name of names) {
      if (Object.hasOwn(fields, name)) found[name] = asText(fields[name]);
      else if (inner && Object.hasOwn(inner, name)) found[name] = asText(inner[name]);
    }
    return found;
  }
  if (source != null && names.length === 1) return { [names[0]]: asText(source) };
  return {};
}
