// The audit log (docs/ui.md#administration, docs/access.md#audit): the project's events newest
// first, filtered by action, 50 a page; the filter and the page are in the URL.
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { AuditLogQuery } from '../__generated__/AuditLogQuery.graphql.ts';
import { formatTime } from '../format.ts';
import { paths, useRouter } from '../router.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { actionName, auditActions, auditVariables, detailsText } from './audit.ts';

const query = graphql`
  query AuditLogQuery($action: AuditAction, $first: Int, $after: String, $last: Int, $before: String) {
    auditEvents(action: $action, first: $first, after: $after, last: $last, before: $before) {
      edges {
        node {
          id
          action
          actorType
          actorLabel
          targetType
          targetId
          details
          ip
          createdAt
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

export function AuditLog({ projectId }: { projectId: string }) {
  const { location, navigate } = useRouter();
  const variables = auditVariables(location.search);
  const { auditEvents } = useLazyLoadQuery<AuditLogQuery>(query, variables, { fetchPolicy: 'store-and-network' });
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
              <tr key={event.id}>
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
