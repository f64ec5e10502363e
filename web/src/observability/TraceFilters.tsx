// The trace list's filters (docs/ui.md#the-trace-list): the API's filters in a form, applied with
// a button (not at each keystroke) into the URL.
import { useEffect, useState, type FormEvent } from 'react';
import { ChecksField } from '../components/forms.tsx';
import { numberOf, parseState, spanKinds, statuses, type TraceListState } from './filters.ts';
import { TimeRangeFields } from './ListControls.tsx';

export function TraceFilters({ state, apply }: { state: TraceListState; apply: (next: TraceListState) => void }) {
  const [draft, setDraft] = useState(state);
  useEffect(() => setDraft(state), [state]);
  const set = <K extends keyof TraceListState>(key: K, value: TraceListState[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply({ ...draft, after: null, before: null });
  };
  const text = (key: 'name' | 'user' | 'session' | 'environment' | 'model' | 'text', label: string) => (
    <label>
      {label}
      <input type="search" value={draft[key]} onChange={(event) => set(key, event.target.value)} />
    </label>
  );
  const number = (key: 'minCost' | 'maxCost' | 'minLatency' | 'maxLatency', label: string) => {
    const invalid = draft[key].trim() !== '' && (numberOf(draft[key]) === undefined || numberOf(draft[key])! < 0);
    return (
      <label>
        {label}
        <input inputMode="decimal" value={draft[key]} aria-invalid={invalid || undefined} onChange={(event) => set(key, event.target.value)} />
      </label>
    );
  };
  // Ranges, statuses and kinds stay folded unless the URL sets one.
  const moreSet =
    [state.minCost, state.maxCost, state.minLatency, state.maxLatency].some((value) => value !== '') || state.statuses.length > 0 || state.kinds.length > 0;
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter traces">
      <TimeRangeFields legend="Time" value={draft} onChange={(next) => setDraft((current) => ({ ...current, ...next }))} />
      <fieldset>
        <legend>Trace</legend>
        {text('name', 'Name contains')}
        {text('text', 'Text in inputs or outputs')}
        {text('model', 'Model')}
        {text('user', 'User id')}
        {text('session', 'Session id')}
        {text('environment', 'Environment')}
      </fieldset>
      <details className="more-filters" open={moreSet || undefined}>
        <summary>More filters{moreSet ? ' (some set)' : ''}</summary>
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
            legend="Kind of the root span"
            options={spanKinds.map((kind) => ({ value: kind, label: kind }))}
            chosen={draft.kinds}
            onChange={(next) => set('kinds', next)}
          />
        </div>
      </details>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={() => apply(parseState(''))}>
          Clear
        </button>
      </div>
    </form>
  );
}
