// An evaluator's settings form from its settingsTemplate (docs/ui.md#evaluator-configs): each
// field kept as the control edits it (text, a checkbox, chat messages), turned into the values the
// API checks. What is not a number is sent as typed, so the API's 422 names the field.

export type SettingType = 'STRING' | 'REGEX' | 'CODE' | 'URL' | 'NUMBER' | 'BOOLEAN' | 'MESSAGES' | 'MULTIPLE_CHOICE';

export interface Setting {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly min?: number | null;
  readonly max?: number | null;
  readonly options?: readonly string[] | null;
}

export interface Message {
  role: string;
  content: string;
}

/** A field's value while it is edited. */
export type DraftValue = string | boolean | Message[];
export type Draft = Record<string, DraftValue>;

function asMessages(value: unknown): Message[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: { role?: unknown; content?: unknown } | null) => ({
    role: typeof item?.role === 'string' ? item.role : 'user',
    content: typeof item?.content === 'string' ? item.content : '',
  }));
}

/** The draft of a saved config's values, or of the template's defaults for a new one. */
export function initialDraft(template: readonly Setting[], saved: Record<string, unknown> = {}): Draft {
  const draft: Draft = {};
  for (const setting of template) {
    const value = setting.name in saved ? saved[setting.name] : setting.default;
    if (setting.type === 'BOOLEAN') draft[setting.name] = value === true;
    else if (setting.type === 'MESSAGES') draft[setting.name] = asMessages(value);
    else if (value == null) draft[setting.name] = '';
    else draft[setting.name] = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  }
  return draft;
}

/**
 * The settings values to send: numbers parsed, empty fields left out (the API fills in an optional
 * one's default and refuses a required one as "Field required", naming it).
 */
export function settingsValues(template: readonly Setting[], draft: Draft): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const setting of template) {
    const value = draft[setting.name];
    if (setting.type === 'BOOLEAN') values[setting.name] = value === true;
    else if (setting.type === 'MESSAGES') values[setting.name] = value;
    else if (typeof value === 'string') {
      if (value === '') continue;
      if (setting.type === 'NUMBER') values[setting.name] = Number.isFinite(Number(value)) && value.trim() !== '' ? Number(value) : value;
      else values[setting.name] = value;
    }
  }
  return values;
}
