// Where a score came from, as the score panel and the session's table show it: its source, and for
// an online evaluation's score (source `online`) links to the rule that wrote it and to its judge's
// trace (docs/online-evaluation.md#jobs: the score's metadata carries both).
import { Link, matchRoute, paths } from '../router.tsx';

const textOf = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

export function ScoreSource({ source, metadata }: { source: string; metadata?: unknown }) {
  // The project is the page's (read from its URL, so the panel needs no router of its own).
  const route = matchRoute(window.location.pathname);
  const projectId = route && 'projectId' in route ? route.projectId : null;
  const meta = metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : {};
  const ruleId = textOf(meta.rule_id);
  const judgeTraceId = textOf(meta.judge_trace_id);
  const name = source.toLowerCase();
  if (name !== 'online' || !projectId || !ruleId) return <>{name}</>;
  return (
    <>
      online, by <Link to={paths.rule(projectId, ruleId)}>its rule</Link>
      {judgeTraceId && (
        <>
          {' '}
          (<Link to={paths.trace(projectId, judgeTraceId)}>judge’s trace</Link>)
        </>
      )}
    </>
  );
}
