// The audit log (docs/ui.md#administration, docs/access.md#audit): the project's events newest
// first, filtered by action, 50 a page; the filter and the page are in the URL.
import { graphql, useFragment, usePreloadedQuery } from 'react-relay';
import type { AuditLog_query$key } from '../__generated__/AuditLog_query.graphql.ts';
import type { AuditLogQuery } from '../__generated__/AuditLogQuery.graphql.ts';
import type { AuditLogRow_event$key } from '../__generated__/AuditLogRow_event.graphql.ts';
import { Empty, HeadRow } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatTime } from '../format.ts';
import { paths, useRouter, type RouteOf } from '../router.tsx';
import { actionName, auditActions, detailsText } from './audit.ts';
import type { AuditLogQueries } from './entrypoints.ts';

const query = graphql`
  query AuditLogQuery($action: AuditAction, $first: Int, $after: String, $last: Int, $before: String) {
    ...AuditLog_query
  }
`;

// A page of events by cursor, the cursors and the action in the URL (the query's variables).
const pageFragment = graphql`
  fragment AuditLog_query on Query {
    auditEvents(action: $action, first: $first, after: $after, last: $last, before: $before) {
      edges {
        node {
          id
          ...AuditLogRow_event
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

const rowFragment = graphql`
  fragment AuditLogRow_event on AuditEvent {
    action
    actorType
    actorLabel
    targetType
    targetId
    details
    ip
    createdAt
  }
`;

function AuditRow({ event: eventRef }: { event: AuditLogRow_event$key }) {
  const event = useFragment(rowFragment, eventRef);
  return (
    <tr>
      <td className="nowrap">{formatTime(event.createdAt)}</td>
      <td className="nowrap">
        <code>{actionName(event.action)}</code>
      </td>
      <td>{event.actorLabel ?? <span className="muted">{event.actorType.toLowerCase()}</span>}</td>
      <td className="target">
        {event.targetType ? (
          <>
            {event.targetType.replaceAll('_', ' ')} <code className="small">{event.targetId}</code>
          </>
        ) : (
          '–'
        )}
      </td>
      <td className="details">{detailsText(event.details)}</td>
      <td>{event.ip ?? '–'}</td>
    </tr>
  );
}

export function AuditLog({ route: { projectId }, queries }: ScreenProps<RouteOf<'admin'>, AuditLogQueries>) {
  const { navigate } = useRouter();
  const { variables } = queries.events;
  const { auditEvents } = useFragment<AuditLog_query$key>(pageFragment, usePreloadedQuery<AuditLogQuery>(query, queries.events));
  const go = (changes: Record<string, string | null | undefined>) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries({ action: variables.action, ...changes })) if (value) params.set(name, value);
    const search = params.toString();
    navigate(paths.admin(projectId, 'audit', search ? `?${search}` : ''));
  };
  const { pageInfo } = auditEvents;
  // A page reached going one way has pages that way back, whatever the connection says of them.
  const newer = pageInfo.hasPreviousPage || Boolean(variables.after);
  const older = pageInfo.hasNextPage || Boolean(variables.before);

  return (
    <>
      <div className="filters-inline">
        <label>
          Action{' '}
          <select value={variables.action ?? ''} onChange={(event) => go({ action: event.target.value || null })}>
            <option value="">every action</option>
            {auditActions.map((action) => (
              <option key={action} value={action}>
                {actionName(action)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {auditEvents.edges.length === 0 ? (
        <Empty title={variables.action ? 'No event of this action' : 'No events yet'}>Changes of keys, members and sign-ins are recorded here.</Empty>
      ) : (
        <table className="admin-table audit">
          <caption className="visually-hidden">Audit events, newest first</caption>
          <HeadRow columns={['When', 'Action', 'Who', 'On', 'Details', 'From']} />
          <tbody>
            {auditEvents.edges.map(({ node: event }) => (
              <AuditRow key={event.id} event={event} />
            ))}
          </tbody>
        </table>
      )}
      <div className="pager">
        <button type="button" disabled={!newer || !pageInfo.startCursor} onClick={() => go({ before: pageInfo.startCursor })}>
          Newer
        </button>
        <button type="button" disabled={!older || !pageInfo.endCursor} onClick={() => go({ after: pageInfo.endCursor })}>
          Older
        </button>
      </div>
    </>
  );
}
