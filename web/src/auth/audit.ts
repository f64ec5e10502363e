// What the audit log computes without the API (docs/ui.md#administration): the actions' names as
// REST gives them, details for people and the page the URL names.
import type { AuditAction, AuditLogQuery } from '../__generated__/AuditLogQuery.graphql.ts';

const PAGE = 50;

export const auditActions: AuditAction[] = [
  'API_KEY_CREATED',
  'API_KEY_REVOKED',
  'LOGIN_FAILED',
  'LOGIN_SUCCEEDED',
  'LOGOUT',
  'MEMBERSHIP_ADDED',
  'MEMBERSHIP_REMOVED',
  'MEMBERSHIP_ROLE_CHANGED',
  'PASSWORD_LINK_ISSUED',
  'PASSWORD_SET',
  'PROJECT_CREATED',
  'PROJECT_UPDATED',
  'USER_CREATED',
  'USER_UPDATED',
];

/** `API_KEY_CREATED` as the API's REST names it: `api_key.created`. */
export function actionName(action: string): string {
  const lower = action.toLowerCase();
  const objects = ['api_key', 'password_link', 'membership', 'project', 'password', 'login', 'user'];
  const object = objects.find((candidate) => lower.startsWith(`${candidate}_`));
  return object ? `${object}.${lower.slice(object.length + 1)}` : lower;
}

/** An event's details for people: `role: viewer, scopes: read, ingest`. */
export function detailsText(details: unknown): string {
  if (details == null) return '';
  if (typeof details !== 'object' || Array.isArray(details)) return JSON.stringify(details);
  const shown = (value: unknown): string => (Array.isArray(value) ? value.map(shown).join(', ') : typeof value === 'string' ? value : JSON.stringify(value));
  return Object.entries(details)
    .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${shown(value)}`)
    .join('; ');
}

/** The page the URL names: an action and a cursor to page after (or before). */
export function auditVariables(search: string): AuditLogQuery['variables'] {
  const params = new URLSearchParams(search);
  const action = params.get('action');
  const known = auditActions.find((candidate) => candidate === action) ?? null;
  const before = params.get('before');
  return before ? { action: known, last: PAGE, before } : { action: known, first: PAGE, after: params.get('after') };
}
