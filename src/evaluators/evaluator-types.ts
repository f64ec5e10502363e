// What a built-in evaluator is (docs/evaluators.md): its result, and the settings template its
// configs are edited and checked with (registry.ts lists the evaluators themselves).

/** How a setting is edited and checked. */
export const settingTypes = [
  /** One line of text, at least one character. */
  'string',
  /** A regular expression in RE2 syntax (source only, no slashes or flags; see regex.ts). */
  'regex',
  /** Source code, at least one character. */
  'code',
  /** An http(s) URL. */
  'url',
  /** A number within `min`/`max` when given. */
  'number',
  'boolean',
  /** Chat messages `[{role, content}]`, at least one. */
  'messages',
  /** One of `options`. */
  'multiple_choice',
] as const;
export type SettingType = (typeof settingTypes)[number];

export const resultTypes = ['bool', 'number'] as const;
export type ResultType = (typeof resultTypes)[number];

/** Roles a judge prompt may use. */
export const judgeMessageRoles = ['system', 'user', 'assistant'] as const;

export interface EvaluatorSetting {
  label: string;
  type: SettingType;
  /** Filled in when the field is absent; `null` for required fields and for optional ones without a value. */
  default: unknown;
  /** The user must give it (required fields have no default). */
  required: boolean;
  description: string;
  /** Bounds of a `number`, inclusive. */
  min?: number;
  max?: number;
  /** Choices of a `multiple_choice`. */
  options?: readonly string[];
}

export type SettingsTemplate = Readonly<Record<string, EvaluatorSetting>>;

export interface Evaluator {
  key: string;
  name: string;
  description: string;
  result_type: ResultType;
  /** Calls a model provider, so an evaluation using it needs a provider key. */
  requires_llm_api_keys: boolean;
  settings_template: SettingsTemplate;
  /**
   * Settings Agenta's configs of this evaluator carry and Agenta itself ignores: accepted, stored
   * as given and ignored, so such configs load unchanged (docs/evaluators.md#agentas-settings).
   * Any other unknown setting is refused, so a misspelt one is still caught.
   */
  ignored_settings?: readonly string[];
}
