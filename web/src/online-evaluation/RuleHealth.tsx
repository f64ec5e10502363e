// Whether a rule runs, as the list and its page show it: disabled, paused with the reason the
// runner gave (no provider key…), or active; and its jobs' counts by status.
import { graphql, useFragment } from 'react-relay';
import type { RuleHealth_rule$key } from '../__generated__/RuleHealth_rule.graphql.ts';

const fragment = graphql`
  fragment RuleHealth_rule on EvaluationRule {
    enabled
    status
    pausedReason
  }
`;

export function RuleHealth({ rule: key }: { rule: RuleHealth_rule$key }) {
  const rule = useFragment(fragment, key);
  if (!rule.enabled) return <span className="status status-disabled">Disabled</span>;
  if (rule.status === 'PAUSED')
    return (
      <span className="rule-paused">
        <span className="status status-paused">Paused</span> <span className="error-text small">{rule.pausedReason ?? 'the evaluator cannot run'}</span>
      </span>
    );
  return <span className="status status-active">Active</span>;
}

export const jobStatuses = ['PENDING', 'RUNNING', 'DONE', 'ERROR', 'SKIPPED'] as const;
export type JobStatus = (typeof jobStatuses)[number];

/** The stats' counts by status, every status present. */
export function jobCounts(rows: readonly { status: string; count: number }[]): Record<JobStatus, number> {
  const counts = { PENDING: 0, RUNNING: 0, DONE: 0, ERROR: 0, SKIPPED: 0 };
  for (const row of rows) if (row.status in counts) counts[row.status as JobStatus] = row.count;
  return counts;
}
