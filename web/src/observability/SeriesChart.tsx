// Traces over time as plain SVG bars (docs/ui.md#decisions: no chart library for one bar chart):
// errors stacked on the rest, and a score's mean per interval as a line when one is asked for
// (`chart` in the URL), with an accessible summary.
import { graphql, useFragment } from 'react-relay';
import type { SeriesChart_buckets$key } from '../__generated__/SeriesChart_buckets.graphql.ts';
import { formatCount, formatTime } from '../format.ts';

const bucketsFragment = graphql`
  fragment SeriesChart_buckets on TraceSeriesBucket @relay(plural: true) {
    start
    end
    count
    errorCount
    scores {
      name
      mean
    }
  }
`;

const WIDTH = 600;
const HEIGHT = 120;

export function SeriesChart({ buckets: bucketsRef, scoreName = null }: { buckets: SeriesChart_buckets$key; scoreName?: string | null }) {
  const buckets = useFragment(bucketsFragment, bucketsRef);
  if (buckets.length === 0) return null;
  const means = buckets.map((bucket) => bucket.scores.find((score) => score.name === scoreName)?.mean ?? null);
  const max = Math.max(1, ...buckets.map((bucket) => bucket.count));
  const barWidth = WIDTH / buckets.length;
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const line = scoreName ? scoreLineText(scoreName, means) : '';
  const label = `${line}Traces over time: ${formatCount(total)} from ${formatTime(buckets[0].start)} to ${formatTime(buckets[buckets.length - 1].end)}, at most ${formatCount(max)} in one interval.`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {buckets.map((bucket, i) => {
          const height = (bucket.count / max) * (HEIGHT - 4);
          const errors = (bucket.errorCount / max) * (HEIGHT - 4);
          return (
            <g key={i}>
              <title>{`${formatTime(bucket.start)}: ${formatCount(bucket.count)} traces, ${formatCount(bucket.errorCount)} failed`}</title>
              <rect className="bar" x={i * barWidth + 1} y={HEIGHT - height} width={Math.max(1, barWidth - 2)} height={height} />
              {errors > 0 && <rect className="bar-error" x={i * barWidth + 1} y={HEIGHT - errors} width={Math.max(1, barWidth - 2)} height={errors} />}
            </g>
          );
        })}
        {scoreName && <ScoreLine means={means} barWidth={barWidth} />}
      </svg>
      <figcaption className="chart-axis">
        <span>{formatTime(buckets[0].start)}</span>
        <span>{formatTime(buckets[buckets.length - 1].end)}</span>
      </figcaption>
    </figure>
  );
}

/** A score's means as words: where the line starts and ends, its lowest and highest. */
function scoreLineText(name: string, means: readonly (number | null)[]): string {
  const known = means.filter((mean): mean is number => mean !== null);
  if (known.length === 0) return `No score ${name} in these intervals. `;
  const show = (value: number) => String(Number(value.toFixed(3)));
  return `Mean of ${name} per interval, from ${show(known[0])} to ${show(known[known.length - 1])}, between ${show(Math.min(...known))} and ${show(Math.max(...known))}. `;
}

/** The means as a line over the bars, scaled from their lowest to their highest; gaps where an interval has none. */
function ScoreLine({ means, barWidth }: { means: readonly (number | null)[]; barWidth: number }) {
  const known = means.filter((mean): mean is number => mean !== null);
  if (known.length === 0) return null;
  const low = Math.min(...known);
  const span = Math.max(...known) - low || 1;
  const points = means.flatMap((mean, i) => (mean === null ? [] : [`${i * barWidth + barWidth / 2},${HEIGHT - 6 - ((mean - low) / span) * (HEIGHT - 12)}`]));
  return (
    <g className="score-line">
      <polyline points={points.join(' ')} />
      {/* A zero-length round-capped line: a dot the stretched viewBox keeps round. */}
      {points.map((point) => {
        const [x, y] = point.split(',');
        return <line key={point} x1={x} y1={y} x2={x} y2={y} />;
      })}
    </g>
  );
}
