// Traces over time as plain SVG bars (docs/ui.md#decisions: no chart library for one bar chart):
// errors stacked on the rest, an accessible summary and a table for screen readers.
import { graphql, useFragment } from 'react-relay';
import type { SeriesChart_buckets$key } from '../__generated__/SeriesChart_buckets.graphql.ts';
import { formatCount, formatTime } from '../format.ts';

const bucketsFragment = graphql`
  fragment SeriesChart_buckets on TraceSeriesBucket @relay(plural: true) {
    start
    end
    count
    errorCount
  }
`;

const WIDTH = 600;
const HEIGHT = 120;

export function SeriesChart({ buckets: bucketsRef }: { buckets: SeriesChart_buckets$key }) {
  const buckets = useFragment(bucketsFragment, bucketsRef);
  if (buckets.length === 0) return null;
  const max = Math.max(1, ...buckets.map((bucket) => bucket.count));
  const barWidth = WIDTH / buckets.length;
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const label = `Traces over time: ${formatCount(total)} from ${formatTime(buckets[0].start)} to ${formatTime(buckets[buckets.length - 1].end)}, at most ${formatCount(max)} in one interval.`;
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
      </svg>
      <figcaption className="chart-axis">
        <span>{formatTime(buckets[0].start)}</span>
        <span>{formatTime(buckets[buckets.length - 1].end)}</span>
      </figcaption>
    </figure>
  );
}
