// What the rule form computes without the API (docs/ui.md#online-evaluation): a rule's filter (the
// trace search's query parameter names, docs/online-evaluation.md#rules) as the trace list's filter
// fields edit it and back, the rule as the form edits it, and the input or patch it sends.
import type { FilterDraft } from '../observability/TraceFilters.tsx';
import { attributeFilterOf, filterVariables, numberOf, parseState, spanKinds, statuses, type SpanKind, type Status } from '../observability/filters.ts';

export const targets = ['TRACE', 'SPAN', 'SESSION'] as const;
export type Target = (typeof targets)[number];

/** The filter's text fields: the form's key and the rule's. */
const textKeys = [
  ['name', 'name_contains'],
  ['text', 'text'],
  ['model', 'model'],
  ['user', 'user_id'],
  ['session', 'session_id'],
  ['environment', 'environment'],
] as const;
const numberKeys = [
  ['minCost', 'min_cost'],
  ['maxCost', 'max_cost'],
  ['minLatency', 'min_latency'],
  ['maxLatency', 'max_latency'],
] as const;

/** The keys of a rule's filter the form edits; any other (app_id, variant_id…) is kept as it is. */
const editedKeys = new Set<string>([...textKeys.map(([, key]) => key), ...numberKeys.map(([, key]) => key), 'spankind', 'status', 'attributes']);

export type RuleFilter = Record<string, unknown>;

export function draftOfFilter(filter: RuleFilter): FilterDraft {
  const text = (key: string) => (typeof filter[key] === 'string' || typeof filter[key] === 'number' ? String(filter[key]) : '');
  const list = <T extends string>(key: string, allowed: readonly T[]) =>
    Array.isArray(filter[key]) ? (filter[key] as unknown[]).filter((item): item is T => (allowed as readonly unknown[]).includes(item)) : [];
  // The rule keeps REST's operator names (`equals`), the form GraphQL's (`EQUALS`).
  const attributes = Array.isArray(filter.attributes) ? filter.attributes.flatMap((item: unknown) => attributeFilterOf(item) ?? []) : [];
  const draft = { statuses: list<Status>('status', statuses), kinds: list<SpanKind>('spankind', spanKinds), attributes } as FilterDraft;
  for (const [field, key] of [...textKeys, ...numberKeys]) draft[field] = text(key);
  return draft;
}

/**
 * The filter the draft says, over the keys of `kept` the form does not edit. A number that does not
 * read as one is sent as typed, so the API's refusal names its field.
 */
export function filterOfDraft(draft: FilterDraft, kept: RuleFilter = {}): RuleFilter {
  const filter: RuleFilter = Object.fromEntries(Object.entries(kept).filter(([key]) => !editedKeys.has(key)));
  for (const [field, key] of textKeys) if (draft[field].trim() !== '') filter[key] = draft[field].trim();
  for (const [field, key] of numberKeys) if (draft[field].trim() !== '') filter[key] = numberOf(draft[field]) ?? draft[field].trim();
  if (draft.kinds.length > 0) filter.spankind = draft.kinds;
  if (draft.statuses.length > 0) filter.status = draft.statuses;
  if (draft.attributes.length > 0) filter.attributes = draft.attributes.map((item) => ({ ...item, operator: item.operator.toLowerCase() }));
  return filter;
}

/** The hours back the live count of matching traces looks over. */
export const RECENT_HOURS = 24;

/** The trace search's arguments (`traceMetrics`, `traces`) of the draft over the recent traces. */
export function recentVariables(draft: FilterDraft, now: number) {
  const { scores: _scores, ...variables } = filterVariables({ ...parseState(''), ...draft, range: null }, now);
  return { ...variables, startedAfter: new Date(now - RECENT_HOURS * 3_600_000).toISOString() };
}

/** The rule as the form edits it: numbers as typed, the config's global id. */
export interface RuleDraft {
  name: string;
  enabled: boolean;
  target: Target;
  filter: FilterDraft;
  /** The stored filter's keys the form does not edit. */
  keptFilter: RuleFilter;
  samplingRate: string;
  delaySeconds: string;
  evaluatorConfigId: string;
  inputs: string;
  output: string;
  expected: string;
  scoreName: string;
  dailyCostLimitUsd: string;
}

/** The rule as GraphQL answers it, for editing. */
export interface StoredRule {
  name: string;
  enabled: boolean;
  target: string;
  filter: unknown;
  samplingRate: number;
  delaySeconds: number;
  evaluatorConfig: { id: string } | null | undefined;
  mapping: unknown;
  scoreName: string;
  dailyCostLimitUsd: number | null | undefined;
}

export const emptyDraft = (): RuleDraft => ({
  name: '',
  enabled: true,
  target: 'TRACE',
  filter: draftOfFilter({}),
  keptFilter: {},
  samplingRate: '1',
  delaySeconds: '0',
  evaluatorConfigId: '',
  inputs: '',
  output: '',
  expected: '',
  scoreName: '',
  dailyCostLimitUsd: '',
});

const objectOf = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export function draftOfRule(rule: StoredRule): RuleDraft {
  const filter = objectOf(rule.filter);
  const mapping = objectOf(rule.mapping);
  const path = (key: string) => (typeof mapping[key] === 'string' ? mapping[key] : '');
  return {
    name: rule.name,
    enabled: rule.enabled,
    target: (targets as readonly string[]).includes(rule.target) ? (rule.target as Target) : 'TRACE',
    filter: draftOfFilter(filter),
    keptFilter: filter,
    samplingRate: String(rule.samplingRate),
    delaySeconds: String(rule.delaySeconds),
    evaluatorConfigId: rule.evaluatorConfig?.id ?? '',
    inputs: path('inputs'),
    output: path('output'),
    expected: path('expected'),
    scoreName: rule.scoreName,
    dailyCostLimitUsd: rule.dailyCostLimitUsd == null ? '' : String(rule.dailyCostLimitUsd),
  };
}

/** GraphQL's EvaluationRuleInput, every field given. */
export interface RuleInput {
  name: string;
  enabled: boolean;
  target: Target;
  filter: RuleFilter;
  samplingRate: number;
  delaySeconds: number;
  evaluatorConfigId: string;
  mapping: Record<string, string> | null;
  scoreName: string | null;
  dailyCostLimitUsd: number | null;
}

/**
 * The input the draft says, or the faults GraphQL could not carry (a Float that is no number, an
 * Int that is no whole number, no config chosen), by REST's field names as the API names them.
 */
export function ruleInputOf(draft: RuleDraft): { input: RuleInput; issues: Map<string, string[]> } {
  const issues = new Map<string, string[]>();
  const number = (text: string, field: string, whole = false): number => {
    const value = numberOf(text);
    if (value === undefined || (whole && !Number.isInteger(value))) issues.set(field, [whole ? 'Enter a whole number' : 'Enter a number']);
    return value ?? 0;
  };
  const mapping = Object.fromEntries(
    (['inputs', 'output', 'expected'] as const).filter((key) => draft[key].trim() !== '').map((key) => [key, draft[key].trim()]),
  );
  if (!draft.evaluatorConfigId) issues.set('evaluator_config_id', ['Choose an evaluator config']);
  const input: RuleInput = {
    name: draft.name.trim(),
    enabled: draft.enabled,
    target: draft.target,
    filter: filterOfDraft(draft.filter, draft.keptFilter),
    samplingRate: number(draft.samplingRate, 'sampling_rate'),
    delaySeconds: number(draft.delaySeconds, 'delay_seconds', true),
    evaluatorConfigId: draft.evaluatorConfigId,
    mapping: Object.keys(mapping).length > 0 ? mapping : null,
    scoreName: draft.scoreName.trim() || null,
    dailyCostLimitUsd: draft.dailyCostLimitUsd.trim() === '' ? null : number(draft.dailyCostLimitUsd, 'daily_cost_limit_usd'),
  };
  return { input, issues };
}

/** The fields of `input` that differ from `before`: a patch changes only those, so an unchanged rule keeps its version. */
export function patchOf(before: RuleInput, input: RuleInput): Partial<RuleInput> {
  const same = (key: keyof RuleInput) => JSON.stringify(before[key]) === JSON.stringify(input[key]);
  return Object.fromEntries(Object.entries(input).filter(([key]) => !same(key as keyof RuleInput)));
}
