// Scores in the trace list (docs/ui.md#scores): a column's text for a trace, a summary's figure,
// and the score names the filter form suggests (the project's active score configs).
import type { ScoreConfigChoices_query$key } from '../__generated__/ScoreConfigChoices_query.graphql.ts';
import { formatPercent } from '../format.ts';
import { useScoreConfigs } from './traceScores.ts';

/** The id of the datalist of score names the filter form's name fields use. */
export const SCORE_NAMES_LIST = 'score-names';

const number = (value: number) => String(Number(value.toFixed(3)));

/** A trace's scores of a column's name: the newest label or text, or the mean of the numbers (with how many). */
export function columnText(value: { dataType: string; count: number; mean?: number | null; stringValue?: string | null } | undefined): string {
  if (!value) return '–';
  const many = value.count > 1 ? ` (${value.count})` : '';
  if (value.dataType === 'NUMERIC' && value.mean != null) return `${number(value.mean)}${many}`;
  return `${value.stringValue ?? (value.mean == null ? '–' : number(value.mean))}${many}`;
}

/** A score name's summary over the filter as a figure: the mean (a share of true for booleans) with its interval, or the top label. */
export function summaryFigure(summary: {
  name: string;
  dataType: string;
  count: number;
  mean?: number | null;
  interval?: { low: number; high: number } | null;
  labels: readonly { label: string; share: number }[];
}): [string, string] {
  const n = `n=${summary.count}`;
  if (summary.dataType === 'BOOLEAN' && summary.mean != null) {
    const interval = summary.interval ? ` [${formatPercent(summary.interval.low)}–${formatPercent(summary.interval.high)}]` : '';
    return [summary.name, `${formatPercent(summary.mean)} true${interval}, ${n}`];
  }
  if (summary.dataType === 'CATEGORICAL' || summary.dataType === 'TEXT' || summary.mean == null) {
    const top = summary.labels[0];
    return [summary.name, top ? `${top.label} ${formatPercent(top.share)}, ${n}` : n];
  }
  const interval = summary.interval ? ` [${number(summary.interval.low)}–${number(summary.interval.high)}]` : '';
  return [summary.name, `mean ${number(summary.mean)}${interval}, ${n}`];
}

/** The project's active score configs' names, offered by the filter form's score name fields. */
export function ScoreNameOptions({ query }: { query: ScoreConfigChoices_query$key }) {
  const configs = useScoreConfigs(query);
  return (
    <datalist id={SCORE_NAMES_LIST}>
      {configs.map((config) => (
        <option key={config.id} value={config.name} />
      ))}
    </datalist>
  );
}
