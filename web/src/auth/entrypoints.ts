// The entry points of what `auth` serves (docs/ui.md#routes-and-preloading): signing in, setting a
// password, and the administration's API keys, members and audit log.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import ApiKeysQueryNode, { type ApiKeysQuery } from '../__generated__/ApiKeysQuery.graphql.ts';
import AuditLogQueryNode, { type AuditLogQuery } from '../__generated__/AuditLogQuery.graphql.ts';
import MembersQueryNode, { type MembersQuery } from '../__generated__/MembersQuery.graphql.ts';
import { entryPoint, noQueries } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import { auditVariables } from './audit.ts';

export interface ApiKeysQueries {
  [name: string]: PreloadedQuery<ApiKeysQuery>;
  keys: PreloadedQuery<ApiKeysQuery>;
}

export interface MembersQueries {
  [name: string]: PreloadedQuery<MembersQuery>;
  members: PreloadedQuery<MembersQuery>;
}

export interface AuditLogQueries {
  [name: string]: PreloadedQuery<AuditLogQuery>;
  events: PreloadedQuery<AuditLogQuery>;
}

export const loginPage = entryPoint<RouteOf<'login'>, Record<string, never>>(async () => (await import('./LoginPage.tsx')).LoginPage, noQueries);

export const setPasswordPage = entryPoint<RouteOf<'set-password'>, Record<string, never>>(
  async () => (await import('./SetPasswordPage.tsx')).SetPasswordPage,
  noQueries,
);

export const apiKeys = entryPoint(
  async () => (await import('./ApiKeys.tsx')).ApiKeys,
  (environment): ApiKeysQueries => ({ keys: loadQuery<ApiKeysQuery>(environment, ApiKeysQueryNode, {}, { fetchPolicy: 'store-and-network' }) }),
);

export const members = entryPoint(
  async () => (await import('./Members.tsx')).Members,
  (environment): MembersQueries => ({ members: loadQuery<MembersQuery>(environment, MembersQueryNode, {}, { fetchPolicy: 'store-and-network' }) }),
);

export const auditLog = entryPoint(
  async () => (await import('./AuditLog.tsx')).AuditLog,
  (environment, _route, search): AuditLogQueries => ({
    events: loadQuery<AuditLogQuery>(environment, AuditLogQueryNode, auditVariables(search), { fetchPolicy: 'store-and-network' }),
  }),
);
