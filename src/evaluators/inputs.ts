// The inputs of the evaluators domain, named as the REST bodies are (docs/contract.md 4.7). REST
// and GraphQL both validate with these, so a fault is reported at the same `loc` through either.
// `settings_values` are checked against the evaluator's template (registry.ts) by one generic
// schema builder, `settingsSchema`.
import { z } from 'zod';
import { boolean, httpUrl, jsonObject, name, number } from '../shared/validation.js';
import { type EvaluatorSetting, type SettingType, type SettingsTemplate, judgeMessageRoles } from './evaluator-types.js';
import { evaluatorKeys, getEvaluator, ignoredSettings, keptOnUpdate, listEvaluators } from './registry.js';
import { PatternSyntaxError, compilePattern } from './regex.js';
import { TemplateSyntaxError, parseTemplate } from './template.js';

export type SettingsValues = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const nonEmptyString = () => z.string().min(1);

function compilesAsPattern(source: string, ctx: z.RefinementCtx): void {
  try {
    compilePattern(source);
  } catch (error) {
    if (!(error instanceof PatternSyntaxError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message, params: { type: 'value_error' } });
  }
}

/** A message content's placeholders must parse (template.ts); the fault names the placeholder. */
function parsesAsTemplate(content: string, ctx: z.RefinementCtx): void {
  try {
    parseTemplate(content);
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message, params: { type: 'value_error' } });
  }
}

const judgeMessage = z.object({ role: z.enum(judgeMessageRoles), content: nonEmptyString().superRefine(parsesAsTemplate) });

/** The schema of one setting's value, by its type. */
const valueSchemas: Record<SettingType, (setting: EvaluatorSetting) => z.ZodType> = {
  string: nonEmptyString,
  regex: () => nonEmptyString().superRefine(compilesAsPattern),
  code: nonEmptyString,
  url: httpUrl,
  number: (setting) => number({ min: setting.min, max: setting.max }),
  boolean,
  messages: () => z.array(judgeMessage).min(1),
  multiple_choice: (setting) => z.enum((setting.options ?? []) as [string, ...string[]]),
};

function settingSchema(setting: EvaluatorSetting): z.ZodType {
  const value = valueSchemas[setting.type](setting);
  if (setting.required) return value;
  // Optional without a value (e.g. Levenshtein's threshold): null says "not set" and is stored.
  if (setting.default === null || setting.default === undefined) return value.nullable().default(null);
  // A copy each time, so no stored config shares (and could alter) the registry's default.
  return value.default(() => structuredClone(setting.default) as never);
}

/**
 * The schema of an evaluator's `settings_values`, built from its template: each field checked by
 * its type, required ones demanded, absent optional ones filled with their default (the filled
 * values are stored, so a config keeps meaning the same if a default changes later), and unknown
 * fields refused as `extra_forbidden` so a misspelt setting does not pass silently.
 */
export function settingsSchema(template: SettingsTemplate, ignored: readonly string[] = []): z.ZodType<SettingsValues> {
  const shape = Object.fromEntries([
    ...Object.entries(template).map(([field, setting]) => [field, settingSchema(setting)] as const),
    // Kept as given when present, never filled in (docs/evaluators.md#agentas-settings).
    ...ignored.map((field) => [field, z.unknown().optional()] as const),
  ]);
  // One fault per unknown field, in pydantic's words (a strict object would report them all as
  // one fault at the object). zod itself drops a `__proto__` key, so it is never stored.
  return z.object(shape).catchall(extraField);
}

const extraField = z.unknown().superRefine((_, ctx) => {
  ctx.addIssue({ code: 'custom', message: 'Extra inputs are not permitted', params: { type: 'extra_forbidden' } });
});

// Every registered evaluator's settings schema, built when the module loads: the registry is code,
// so this is a constant derived from it, the same for every service in the process, and not state
// to keep in Services (docs/architecture.md#state-lives-in-services).
const schemasByKey: ReadonlyMap<string, z.ZodType<SettingsValues>> = new Map(
  listEvaluators().map((evaluator) => [evaluator.key, settingsSchema(evaluator.settings_template, ignoredSettings(evaluator))]),
);

/** The settings schema of a registered evaluator, or undefined for an unknown key. */
export function evaluatorSettingsSchema(evaluatorKey: string): z.ZodType<SettingsValues> | undefined {
  return schemasByKey.get(evaluatorKey);
}

/** Adds the faults of `values` against the evaluator's template under `settings_values`. */
function checkSettings(evaluatorKey: string, values: unknown, ctx: z.RefinementCtx): void {
  const schema = evaluatorSettingsSchema(evaluatorKey);
  if (!schema) {
    // A config whose evaluator left the registry: its settings can no longer be checked.
    ctx.addIssue({
      code: 'custom',
      path: ['settings_values'],
      message: `Evaluator ${evaluatorKey} is no longer available, so its settings cannot be changed`,
      params: { type: 'value_error' },
    });
    return;
  }
  const parsed = schema.safeParse(values, { reportInput: true });
  if (parsed.success) return;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({ ...issue, path: ['settings_values', ...issue.path] });
  }
}

/** The settings with every default filled in; only called on values `checkSettings` accepted. */
function completeSettings(evaluatorKey: string, values: SettingsValues): SettingsValues {
  return evaluatorSettingsSchema(evaluatorKey)!.parse(values);
}

const configName = () => name().max(255);

export const createEvaluatorConfigInput = z
  .object({
    app_id: nonEmptyString(),
    name: configName(),
    // An enum fault lists the valid keys in its message, as pydantic does for a Literal.
    evaluator_key: z.enum(evaluatorKeys),
    settings_values: jsonObject(),
  })
  // `when`: check the settings even if other fields failed, so every fault is listed; but only
  // for a known evaluator (an unknown key is the one fault worth reporting then).
  .superRefine((input, ctx) => checkSettings(input.evaluator_key, input.settings_values, ctx), {
    when: (payload) => {
      const value = payload.value as { evaluator_key?: unknown; settings_values?: unknown } | undefined;
      return (
        isPlainObject(value) &&
        typeof value.evaluator_key === 'string' &&
        getEvaluator(value.evaluator_key) !== undefined &&
        isPlainObject(value.settings_values)
      );
    },
  })
  .transform((input) => ({ ...input, settings_values: completeSettings(input.evaluator_key, input.settings_values) }));

/** The fields of `PUT /evaluators/configs/{id}` whatever the evaluator (what the API reference shows). */
export const updateEvaluatorConfigFields = z.object({
  name: configName().nullish(),
  settings_values: jsonObject().nullish().describe("Checked against the evaluator's settings_template"),
  evaluator_key: z.string().nullish().describe("The config's own key, or absent: the evaluator cannot change"),
});

/** The settings of an update, with the stored value of each setting kept when left out (registry.ts keptOnUpdate). */
function keepStored(evaluatorKey: string, values: SettingsValues, stored: SettingsValues): SettingsValues {
  const kept = Object.entries(keptOnUpdate[evaluatorKey] ?? {})
    .filter(([field]) => values[field] === undefined)
    .map(([field, fallback]): [string, unknown] => [field, stored[field] ?? fallback]);
  return { ...Object.fromEntries(kept), ...values };
}

/**
 * The body of `PUT /evaluators/configs/{id}` for a config of `evaluatorKey` whose settings are
 * `stored`: the key cannot change, so the settings are checked against that evaluator's template.
 * Absent or null fields stay as they are; given settings replace the stored ones whole (defaults
 * filled again, but a setting kept on update keeps its stored value). Other fields of a config
 * sent back (id, created_at, …) are ignored.
 */
export function updateEvaluatorConfigInput(evaluatorKey: string, stored: SettingsValues) {
  return updateEvaluatorConfigFields
    .extend({
      // Clients often send a read config back whole: its own key is fine, another one is refused
      // rather than ignored, so nobody believes they switched the evaluator.
      evaluator_key: z
        .string()
        .refine((key) => key === evaluatorKey, {
          message: `The evaluator of a config cannot change (this one is ${evaluatorKey}); create a new config instead`,
          params: { type: 'value_error' },
        })
        .nullish(),
    })
    .superRefine((input, ctx) => checkSettings(evaluatorKey, input.settings_values, ctx), {
      when: (payload) => isPlainObject(payload.value) && isPlainObject((payload.value as { settings_values?: unknown }).settings_values),
    })
    .transform((input) => ({
      name: input.name ?? undefined,
      settings_values: input.settings_values ? completeSettings(evaluatorKey, keepStored(evaluatorKey, input.settings_values, stored)) : undefined,
    }));
}

export const listEvaluatorConfigsQuery = z.object({ app_id: nonEmptyString().optional() });

export type CreateEvaluatorConfigInput = z.output<typeof createEvaluatorConfigInput>;
export type UpdateEvaluatorConfigInput = z.output<ReturnType<typeof updateEvaluatorConfigInput>>;
