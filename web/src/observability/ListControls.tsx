// What the trace and session lists share (docs/ui.md#the-trace-list): the time range of their
// filter forms, and the previous and next pages by cursor.
import { ranges, type Range } from './filters.ts';

export interface TimeRange {
  range: Range | null;
  from: string;
  to: string;
}

/** A preset range (the last hour, day, week, 30 days) or a custom from/to, as typed. */
export function TimeRangeFields({ legend, value, onChange }: { legend: string; value: TimeRange; onChange: (next: Partial<TimeRange>) => void }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <label>
        Range
        <select value={value.range ?? ''} onChange={(event) => onChange({ range: (event.target.value || null) as Range | null })}>
          <option value="">All time or custom</option>
          {Object.keys(ranges).map((range) => (
            <option key={range} value={range}>
              Last {range}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="datetime-local" value={value.from} disabled={value.range !== null} onChange={(event) => onChange({ from: event.target.value })} />
      </label>
      <label>
        To
        <input type="datetime-local" value={value.to} disabled={value.range !== null} onChange={(event) => onChange({ to: event.target.value })} />
      </label>
    </fieldset>
  );
}

interface PageInfo {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly startCursor: string | null | undefined;
  readonly endCursor: string | null | undefined;
}

/** Previous and next pages: `onPage` gets the cursors of the page to show. */
export function CursorPager({ pageInfo, onPage }: { pageInfo: PageInfo; onPage: (cursors: { after: string | null; before: string | null }) => void }) {
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        disabled={!pageInfo.hasPreviousPage || !pageInfo.startCursor}
        onClick={() => onPage({ after: null, before: pageInfo.startCursor ?? null })}
      >
        Previous page
      </button>
      <button type="button" disabled={!pageInfo.hasNextPage || !pageInfo.endCursor} onClick={() => onPage({ before: null, after: pageInfo.endCursor ?? null })}>
        Next page
      </button>
    </nav>
  );
}
