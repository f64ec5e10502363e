// The trace list's filters (docs/ui.md#the-trace-list): the API's filters in a form, applied with
// a button (not at each keystroke) into the URL.
import { useEffect, useState, type FormEvent } from 'react';
import { ChecksField } from '../components/forms.tsx';
import { TimeRangeFields } from './ListControls.tsx';
import { SCORE_NAMES_LIST } from '../scores/columns.tsx';
import '../scores/scores.css';
import {
  attributeFilterRow,
  attributeOperators,
  attributeValueKinds,
  MAX_ATTRIBUTE_FILTERS,
  MAX_SCORE_FILTERS,
  numberOf,
  rowAttributeFilter,
  parseState,
  rowScoreFilter,
  scoreConditions,
  scoreFilterRow,
  spanKinds,
  statuses,
  type AttributeFilterRow,
  type AttributeFilterState,
  type AttributeOperator,
  type AttributeValueKind,
  type ScoreCondition,
  type ScoreFilterRow,
  type TraceListState,
} from './filters.ts';

const namesText = (names: readonly string[]) => names.join(', ');
const namesOf = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  ),
];

/** What a trace is, as the filter fields edit it (the trace list's and an online evaluation rule's). */
export type FilterDraft = Pick<
  TraceListState,
  'name' | 'text' | 'model' | 'user' | 'session' | 'environment' | 'minCost' | 'maxCost' | 'minLatency' | 'maxLatency' | 'statuses' | 'kinds' | 'attributes'
>;

interface DraftProps {
  draft: FilterDraft;
  // A method, so a setter of a wider state (the trace list's) fits.
  set<K extends keyof FilterDraft>(this: void, key: K, value: FilterDraft[K]): void;
}

/** The fields of what a trace says: its name, text, model, user, session and environment. */
export function TraceTextFields({ draft, set, legend = 'Trace' }: DraftProps & { legend?: string }) {
  const text = (key: 'name' | 'user' | 'session' | 'environment' | 'model' | 'text', label: string) => (
    <label>
      {label}
      <input type="search" value={draft[key]} onChange={(event) => set(key, event.target.value)} />
    </label>
  );
  return (
    <fieldset>
      <legend>{legend}</legend>
      {text('name', 'Name contains')}
      {text('text', 'Text in inputs or outputs')}
      {text('model', 'Model')}
      {text('user', 'User id')}
      {text('session', 'Session id')}
      {text('environment', 'Environment')}
    </fieldset>
  );
}

/** Whether any of the folded filters (ranges, statuses, kinds, span attributes) is set. */
export const moreFiltersSet = (draft: FilterDraft) =>
  [draft.minCost, draft.maxCost, draft.minLatency, draft.maxLatency].some((value) => value !== '') ||
  draft.statuses.length > 0 ||
  draft.kinds.length > 0 ||
  draft.attributes.length > 0;

const operatorLabels: Record<AttributeOperator, string> = { EQUALS: 'equals', CONTAINS: 'contains', EXISTS: 'is present' };
const filtersOfRows = (rows: readonly AttributeFilterRow[]) => rows.flatMap((row) => rowAttributeFilter(row) ?? []);
const emptyAttributeRow = (): AttributeFilterRow => ({ key: '', operator: 'EQUALS', value: '', kind: 'text' });

/**
 * Span attribute filters (docs/observability.md#span-attributes), one row each. Rows are edited as
 * typed; `onChange` gets the complete ones, so a row still without its key or value is left out.
 */
function AttributeFilterFields({ filters, onChange }: { filters: readonly AttributeFilterState[]; onChange: (next: AttributeFilterState[]) => void }) {
  const [rows, setRows] = useState<AttributeFilterRow[]>(() => filters.map(attributeFilterRow));
  // The filters changed from outside (a cleared form, another URL): show them, unless the rows already say them.
  useEffect(() => {
    setRows((current) => (JSON.stringify(filtersOfRows(current)) === JSON.stringify(filters) ? current : filters.map(attributeFilterRow)));
  }, [filters]);
  const update = (next: AttributeFilterRow[]) => {
    setRows(next);
    onChange(filtersOfRows(next));
  };
  const setRow = (index: number, change: Partial<AttributeFilterRow>) => update(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="attribute-filters">
      <legend>Span attributes</legend>
      {rows.map((row, index) => {
        const incomplete = row.key.trim() !== '' && rowAttributeFilter(row) === null;
        return (
          <div key={index} className="score-filter" role="group" aria-label={`Attribute filter ${index + 1}`}>
            <label>
              Attribute key
              <input
                value={row.key}
                placeholder="gen_ai.system"
                aria-invalid={row.key.trim() === '' || undefined}
                onChange={(event) => setRow(index, { key: event.target.value })}
              />
            </label>
            <label>
              Operator
              <select value={row.operator} onChange={(event) => setRow(index, { operator: event.target.value as AttributeOperator })}>
                {attributeOperators.map((operator) => (
                  <option key={operator} value={operator}>
                    {operatorLabels[operator]}
                  </option>
                ))}
              </select>
            </label>
            {row.operator !== 'EXISTS' && (
              <label>
                Attribute value
                <input value={row.value} aria-invalid={incomplete || undefined} onChange={(event) => setRow(index, { value: event.target.value })} />
              </label>
            )}
            {row.operator === 'EQUALS' && (
              <label>
                Read as
                <select value={row.kind} onChange={(event) => setRow(index, { kind: event.target.value as AttributeValueKind })}>
                  {Object.entries(attributeValueKinds).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <button type="button" className="secondary" onClick={() => update(rows.filter((_, at) => at !== index))}>
              Remove <span className="visually-hidden">attribute filter {index + 1}</span>
            </button>
          </div>
        );
      })}
      <button type="button" className="secondary" disabled={rows.length >= MAX_ATTRIBUTE_FILTERS} onClick={() => setRows([...rows, emptyAttributeRow()])}>
        Add an attribute filter
      </button>
    </fieldset>
  );
}

/** The folded filters: cost and latency ranges, statuses, kinds (`kindLegend` says of which span) and span attributes. */
export function MoreFilterFields({ draft, set, open, kindLegend = 'Kind of the root span' }: DraftProps & { open: boolean; kindLegend?: string }) {
  const number = (key: 'minCost' | 'maxCost' | 'minLatency' | 'maxLatency', label: string) => {
    const invalid = draft[key].trim() !== '' && (numberOf(draft[key]) === undefined || numberOf(draft[key])! < 0);
    return (
      <label>
        {label}
        <input inputMode="decimal" value={draft[key]} aria-invalid={invalid || undefined} onChange={(event) => set(key, event.target.value)} />
      </label>
    );
  };
  return (
    <details className="more-filters" open={open || undefined}>
      <summary>More filters{open ? ' (some set)' : ''}</summary>
      <div className="more-filters-body">
        <fieldset>
          <legend>Ranges</legend>
          {number('minCost', 'Cost from (USD)')}
          {number('maxCost', 'Cost to (USD)')}
          {number('minLatency', 'Latency from (s)')}
          {number('maxLatency', 'Latency to (s)')}
        </fieldset>
        <ChecksField
          legend="Status"
          options={statuses.map((status) => ({ value: status, label: status }))}
          chosen={draft.statuses}
          onChange={(next) => set('statuses', next)}
        />
        <ChecksField
          legend={kindLegend}
          options={spanKinds.map((kind) => ({ value: kind, label: kind }))}
          chosen={draft.kinds}
          onChange={(next) => set('kinds', next)}
        />
        <AttributeFilterFields filters={draft.attributes} onChange={(next) => set('attributes', next)} />
      </div>
    </details>
  );
}

export function TraceFilters({ state, apply }: { state: TraceListState; apply: (next: TraceListState) => void }) {
  const [draft, setDraft] = useState(state);
  const [scoreRows, setScoreRows] = useState<ScoreFilterRow[]>(() => state.scores.map(scoreFilterRow));
  const [columns, setColumns] = useState(() => namesText(state.columns));
  useEffect(() => {
    setDraft(state);
    setScoreRows(state.scores.map(scoreFilterRow));
    setColumns(namesText(state.columns));
  }, [state]);
  const set = <K extends keyof TraceListState>(key: K, value: TraceListState[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const setRow = (index: number, change: Partial<ScoreFilterRow>) =>
    setScoreRows((rows) => rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // A score filter still without its name or number is left out, as an unreadable number is.
    const scores = scoreRows.flatMap((row) => rowScoreFilter(row) ?? []);
    apply({ ...draft, scores, columns: namesOf(columns), after: null, before: null });
  };
  // Ranges, statuses and kinds stay folded unless the URL sets one.
  const moreSet = moreFiltersSet(state);
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter traces">
      <TimeRangeFields legend="Time" value={draft} onChange={(next) => setDraft((current) => ({ ...current, ...next }))} />
      <TraceTextFields draft={draft} set={set} />
      <fieldset className="score-filters">
        <legend>Scores</legend>
        {scoreRows.map((row, index) => {
          const incomplete = rowScoreFilter(row) === null;
          const numbers = row.condition === 'atLeast' || row.condition === 'atMost' || row.condition === 'between';
          return (
            <div key={index} className="score-filter" role="group" aria-label={`Score filter ${index + 1}`}>
              <label>
                Score name
                <input
                  list={SCORE_NAMES_LIST}
                  value={row.name}
                  aria-invalid={row.name.trim() === '' || undefined}
                  onChange={(event) => setRow(index, { name: event.target.value })}
                />
              </label>
              <label>
                Condition
                <select value={row.condition} onChange={(event) => setRow(index, { condition: event.target.value as ScoreCondition })}>
                  {Object.entries(scoreConditions).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
              {(numbers || row.condition === 'anyOf') && (
                <label>
                  {row.condition === 'anyOf' ? 'Labels (commas between)' : row.condition === 'between' ? 'From' : 'Value'}
                  <input
                    inputMode={numbers ? 'decimal' : undefined}
                    value={row.first}
                    aria-invalid={(incomplete && row.name.trim() !== '') || undefined}
                    onChange={(event) => setRow(index, { first: event.target.value })}
                  />
                </label>
              )}
              {row.condition === 'between' && (
                <label>
                  To
                  <input
                    inputMode="decimal"
                    value={row.second}
                    aria-invalid={numberOf(row.second) === undefined || undefined}
                    onChange={(event) => setRow(index, { second: event.target.value })}
                  />
                </label>
              )}
              <button type="button" className="secondary" onClick={() => setScoreRows((rows) => rows.filter((_, at) => at !== index))}>
                Remove <span className="visually-hidden">score filter {index + 1}</span>
              </button>
            </div>
          );
        })}
        <button
          type="button"
          className="secondary"
          disabled={scoreRows.length >= MAX_SCORE_FILTERS}
          onClick={() => setScoreRows((rows) => [...rows, { name: '', condition: 'atLeast', first: '', second: '' }])}
        >
          Add a score filter
        </button>
        <label>
          Chart a score
          <input list={SCORE_NAMES_LIST} value={draft.chart} placeholder="a score name" onChange={(event) => set('chart', event.target.value)} />
        </label>
        <label>
          Score columns
          <input value={columns} placeholder="names, commas between" onChange={(event) => setColumns(event.target.value)} />
        </label>
      </fieldset>
      <MoreFilterFields draft={draft} set={set} open={moreSet} />
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={() => apply(parseState(''))}>
          Clear
        </button>
      </div>
    </form>
  );
}
