// The trace list's state lives in its URL (docs/ui.md#the-trace-list), so a filtered, sorted page
// can be shared: these turn the query string into the API's variables and back.

export const spanKinds = ['AGENT', 'CHAIN', 'EMBEDDING', 'EVALUATOR', 'GUARDRAIL', 'LLM', 'RERANKER', 'RETRIEVER', 'TOOL', 'UNKNOWN', 'WORKFLOW'] as const;
export const statuses = ['ERROR', 'OK', 'UNSET'] as const;
export const sortFields = ['START_TIME', 'LATENCY', 'COST', 'TOKENS', 'SPAN_COUNT', 'ERROR_COUNT'] as const;
/** Time ranges offered as presets, in hours back from now. */
export const ranges = { '1h': 1, '24h': 24, '7d': 168, '30d': 720 } as const;

export type SpanKind = (typeof spanKinds)[number];
export type Status = (typeof statuses)[number];
export type SortField = (typeof sortFields)[number];
export type Range = keyof typeof ranges;

export const PAGE_SIZE = 50;

/**
 * A score filter as GraphQL's `ScoreFilter` takes it (REST's `scores` JSON alike): a name and one
 * condition, a range (`min`, `max` or both), a boolean `value`, labels `anyOf`, or `present`.
 */
export interface ScoreFilterState {
  name: string;
  min?: number;
  max?: number;
  value?: boolean;
  anyOf?: string[];
  present?: boolean;
}

/** Most score filters and columns the API takes at once (MAX_SCORE_FILTERS, twice for names). */
export const MAX_SCORE_FILTERS = 10;

export const attributeOperators = ['EQUALS', 'CONTAINS', 'EXISTS'] as const;
export type AttributeOperator = (typeof attributeOperators)[number];

/**
 * A span attribute filter as GraphQL's `AttributeFilter` takes it (docs/observability.md#span-attributes):
 * a key, an operator and, but for EXISTS, a value (EQUALS: a string, number or boolean).
 */
export interface AttributeFilterState {
  key: string;
  operator: AttributeOperator;
  value?: string | number | boolean;
}

/** Most attribute filters the API takes at once. */
export const MAX_ATTRIBUTE_FILTERS = 10;

/** What the URL says, as typed in the form. */
export interface TraceListState {
  range: Range | null;
  from: string;
  to: string;
  name: string;
  kinds: SpanKind[];
  statuses: Status[];
  user: string;
  session: string;
  environment: string;
  model: string;
  text: string;
  minCost: string;
  maxCost: string;
  minLatency: string;
  maxLatency: string;
  sort: SortField;
  direction: 'ASC' | 'DESC';
  after: string | null;
  before: string | null;
  /** Score filters, every one of which a trace must meet (`scores`, JSON in the URL). */
  scores: ScoreFilterState[];
  /** Span attribute filters, every one of which some span of the trace must meet (`attributes`, JSON in the URL). */
  attributes: AttributeFilterState[];
  /** Score names shown as columns (`column`, one each); a filtered name and every name on the page show too. */
  columns: string[];
  /** Score names the user hid (`hide`, one each): not shown unless asked for as columns. */
  hidden: string[];
  /** A score name whose mean the chart plots over time (`chart`); '' for none. */
  chart: string;
}

const textKeys = ['from', 'to', 'name', 'user', 'session', 'environment', 'model', 'text', 'minCost', 'maxCost', 'minLatency', 'maxLatency', 'chart'] as const;

function listOf<T extends string>(value: string | null, allowed: readonly T[]): T[] {
  return (value ?? '').split(',').filter((item): item is T => (allowed as readonly string[]).includes(item));
}

/** The items of a URL parameter's JSON list; none when it is absent, unreadable or no list. */
function jsonListOf(text: string | null): unknown[] {
  try {
    const parsed: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The score filters of the URL's `scores`, each kept only when it has a name and one condition. */
export function parseScoreFilters(text: string | null): ScoreFilterState[] {
  return jsonListOf(text).flatMap((item: unknown): ScoreFilterState[] => {
    if (typeof item !== 'object' || item === null) return [];
    const { name, min, max, value, anyOf, present } = item as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') return [];
    const filter: ScoreFilterState = { name };
    if (typeof min === 'number') filter.min = min;
    if (typeof max === 'number') filter.max = max;
    if (typeof value === 'boolean') filter.value = value;
    if (Array.isArray(anyOf)) filter.anyOf = anyOf.filter((label): label is string => typeof label === 'string');
    if (typeof present === 'boolean') filter.present = present;
    const conditions = [
      filter.min !== undefined || filter.max !== undefined,
      filter.value !== undefined,
      filter.anyOf !== undefined,
      filter.present !== undefined,
    ];
    return conditions.filter(Boolean).length === 1 ? [filter] : [];
  });
}

/** An attribute filter of `item` when it is one the API takes, else null. */
export function attributeFilterOf(item: unknown): AttributeFilterState | null {
  if (typeof item !== 'object' || item === null) return null;
  const { key, operator, value } = item as Record<string, unknown>;
  if (typeof key !== 'string' || key.trim() === '') return null;
  const op = typeof operator === 'string' ? operator.toUpperCase() : '';
  if (op === 'EXISTS') return { key, operator: op };
  if (op === 'CONTAINS' && typeof value === 'string' && value !== '') return { key, operator: op, value };
  if (op === 'EQUALS' && (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
    return { key, operator: op, value };
  }
  return null;
}

/** The attribute filters of the URL's `attributes`, each kept only when the API would take it. */
export function parseAttributeFilters(text: string | null): AttributeFilterState[] {
  return jsonListOf(text)
    .flatMap((item) => attributeFilterOf(item) ?? [])
    .slice(0, MAX_ATTRIBUTE_FILTERS);
}

/**
 * The score names the table shows as columns, each once: those asked for, then the filtered ones,
 * then by name those the page's traces have (`onPage`), but not the hidden ones unless asked for.
 */
export function scoreColumns(state: Pick<TraceListState, 'scores' | 'columns' | 'hidden'>, onPage: readonly string[] = []): string[] {
  const hidden = new Set(state.hidden.filter((name) => !state.columns.includes(name)));
  const names = [...state.columns, ...state.scores.map((filter) => filter.name), ...[...onPage].sort()];
  return [...new Set(names)].filter((name) => !hidden.has(name)).slice(0, MAX_SCORE_FILTERS * 2);
}

/** The state with a score column hidden (and no longer asked for). */
export function withoutColumn(state: TraceListState, name: string): TraceListState {
  return { ...state, columns: state.columns.filter((column) => column !== name), hidden: [...new Set([...state.hidden, name])] };
}

export function parseState(search: string): TraceListState {
  const params = new URLSearchParams(search);
  const text = Object.fromEntries(textKeys.map((key) => [key, params.get(key) ?? ''])) as Record<(typeof textKeys)[number], string>;
  const range = params.get('range');
  const sort = params.get('sort');
  return {
    ...text,
    range: range !== null && range in ranges ? (range as Range) : null,
    kinds: listOf(params.get('kind'), spanKinds),
    statuses: listOf(params.get('status'), statuses),
    sort: (sortFields as readonly string[]).includes(sort ?? '') ? (sort as SortField) : 'START_TIME',
    direction: params.get('dir') === 'ASC' ? 'ASC' : 'DESC',
    after: params.get('after'),
    before: params.get('before'),
    scores: parseScoreFilters(params.get('scores')),
    attributes: parseAttributeFilters(params.get('attributes')),
    columns: [...new Set(params.getAll('column').filter((name) => name.trim() !== ''))],
    hidden: [...new Set(params.getAll('hide').filter((name) => name.trim() !== ''))],
  };
}

/** The query string of a state; defaults are left out, so the plain list's URL stays plain. */
export function stateSearch(state: TraceListState): string {
  const params = new URLSearchParams();
  if (state.range) params.set('range', state.range);
  for (const key of textKeys) if (state[key].trim() !== '') params.set(key, state[key].trim());
  if (state.kinds.length) params.set('kind', state.kinds.join(','));
  if (state.statuses.length) params.set('status', state.statuses.join(','));
  if (state.sort !== 'START_TIME') params.set('sort', state.sort);
  if (state.direction !== 'DESC') params.set('dir', state.direction);
  if (state.scores.length) params.set('scores', JSON.stringify(state.scores));
  if (state.attributes.length) params.set('attributes', JSON.stringify(state.attributes));
  for (const name of state.columns) params.append('column', name);
  for (const name of state.hidden) params.append('hide', name);
  if (state.after) params.set('after', state.after);
  if (state.before) params.set('before', state.before);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A number typed in a field, or undefined when it is empty or not a number (the form flags it). */
export function numberOf(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** A datetime-local value (local time) as an ISO instant; undefined when empty or unreadable. */
export function instantOf(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const time = new Date(text).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** The filter arguments shared by `traces`, `traceMetrics` and `traceSeries`. */
export function filterVariables(state: TraceListState, now: number) {
  const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());
  return {
    startedAfter: state.range ? new Date(now - ranges[state.range] * 3_600_000).toISOString() : instantOf(state.from),
    startedBefore: state.range ? undefined : instantOf(state.to),
    nameContains: optional(state.name),
    spanKind: state.kinds.length ? state.kinds : undefined,
    status: state.statuses.length ? state.statuses : undefined,
    userId: optional(state.user),
    sessionId: optional(state.session),
    environment: optional(state.environment),
    model: optional(state.model),
    text: optional(state.text),
    minCost: numberOf(state.minCost),
    maxCost: numberOf(state.maxCost),
    minLatency: numberOf(state.minLatency),
    maxLatency: numberOf(state.maxLatency),
    scores: state.scores.length ? state.scores : undefined,
    attributes: state.attributes.length ? state.attributes : undefined,
  };
}

/** Page arguments: forward from `after`, backward to `before`, else the first page. */
export function pageVariables(state: TraceListState) {
  if (state.before) return { last: PAGE_SIZE, before: state.before, first: undefined, after: undefined };
  return { first: PAGE_SIZE, after: state.after ?? undefined, last: undefined, before: undefined };
}

/** Sorting by a column: the same column flips the direction; another starts descending. Back to page 1. */
export function sortedBy(state: TraceListState, field: SortField): TraceListState {
  const direction = state.sort === field && state.direction === 'DESC' ? 'ASC' : 'DESC';
  return { ...state, sort: field, direction, after: null, before: null };
}

/** The trace list query's variables for the URL's state, relative ranges counted back from `now`. */
export function listVariables(state: TraceListState, now: number) {
  return {
    ...filterVariables(state, now),
    ...pageVariables(state),
    sortBy: state.sort,
    sortDirection: state.direction,
    chartScores: state.chart.trim() ? [state.chart.trim()] : [],
  };
}

/** The conditions the filter form offers on a score, as its select names them. */
export const scoreConditions = {
  atLeast: 'at least',
  atMost: 'at most',
  between: 'between',
  isTrue: 'is true',
  isFalse: 'is false',
  anyOf: 'is any of',
  present: 'is given',
  absent: 'is not given',
} as const;
export type ScoreCondition = keyof typeof scoreConditions;

/** A score filter as the form edits it: numbers and labels as typed. */
export interface ScoreFilterRow {
  name: string;
  condition: ScoreCondition;
  /** The number (at least, at most, the lower bound), or the labels separated by commas. */
  first: string;
  /** The upper bound of `between`. */
  second: string;
}

export function scoreFilterRow(filter: ScoreFilterState): ScoreFilterRow {
  const row = { name: filter.name, first: '', second: '' };
  if (filter.min !== undefined && filter.max !== undefined) return { ...row, condition: 'between', first: String(filter.min), second: String(filter.max) };
  if (filter.min !== undefined) return { ...row, condition: 'atLeast', first: String(filter.min) };
  if (filter.max !== undefined) return { ...row, condition: 'atMost', first: String(filter.max) };
  if (filter.value !== undefined) return { ...row, condition: filter.value ? 'isTrue' : 'isFalse' };
  if (filter.anyOf !== undefined) return { ...row, condition: 'anyOf', first: filter.anyOf.join(', ') };
  return { ...row, condition: filter.present === false ? 'absent' : 'present' };
}

/** The filter a form row makes, or null while it lacks a name or a number it needs. */
export function rowScoreFilter(row: ScoreFilterRow): ScoreFilterState | null {
  const name = row.name.trim();
  if (!name) return null;
  const first = numberOf(row.first);
  const second = numberOf(row.second);
  switch (row.condition) {
    case 'atLeast':
      return first === undefined ? null : { name, min: first };
    case 'atMost':
      return first === undefined ? null : { name, max: first };
    case 'between':
      return first === undefined || second === undefined ? null : { name, min: first, max: second };
    case 'isTrue':
    case 'isFalse':
      return { name, value: row.condition === 'isTrue' };
    case 'anyOf': {
      const labels = row.first
        .split(',')
        .map((label) => label.trim())
        .filter(Boolean);
      return labels.length ? { name, anyOf: labels } : null;
    }
    default:
      return { name, present: row.condition === 'present' };
  }
}

/** How the form reads an EQUALS value typed as text: as it is, as a number, or as true/false. */
export const attributeValueKinds = { text: 'text', number: 'number', boolean: 'true/false' } as const;
export type AttributeValueKind = keyof typeof attributeValueKinds;

/** An attribute filter as the form edits it: the value as typed, and what it is to be read as. */
export interface AttributeFilterRow {
  key: string;
  operator: AttributeOperator;
  value: string;
  kind: AttributeValueKind;
}

export function attributeFilterRow(filter: AttributeFilterState): AttributeFilterRow {
  const kind: AttributeValueKind = typeof filter.value === 'number' ? 'number' : typeof filter.value === 'boolean' ? 'boolean' : 'text';
  return { key: filter.key, operator: filter.operator, value: filter.value === undefined ? '' : String(filter.value), kind };
}

/** The filter a form row makes, or null while it lacks a key or a value it needs (a number that reads as one, true or false). */
export function rowAttributeFilter(row: AttributeFilterRow): AttributeFilterState | null {
  const key = row.key.trim();
  if (!key) return null;
  if (row.operator === 'EXISTS') return { key, operator: 'EXISTS' };
  if (row.operator === 'CONTAINS') return row.value === '' ? null : { key, operator: 'CONTAINS', value: row.value };
  if (row.kind === 'number') {
    const value = numberOf(row.value);
    return value === undefined ? null : { key, operator: 'EQUALS', value };
  }
  if (row.kind === 'boolean') {
    const value = row.value.trim().toLowerCase();
    return value === 'true' || value === 'false' ? { key, operator: 'EQUALS', value: value === 'true' } : null;
  }
  return { key, operator: 'EQUALS', value: row.value };
}
