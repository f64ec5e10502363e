// GraphQL of the audit log (docs/access.md#audit), calling the same operations as REST. Reading it
// needs the admin scope (`extensions.scope`, src/graphql/scopes.ts).
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { builder } from '../../shared/graphql/builder.js';
import { inIdOrder } from '../../shared/graphql/ids.js';
import { upperCaseValues } from '../../shared/graphql/names.js';
import { auditActions, auditDetails, findAuditEvents, listAuditEvents, type AuditEventRow } from './operations.js';

const AuditAction = builder.enumType('AuditAction', {
  description: 'What an audit event records (docs/access.md#audit).',
  values: upperCaseValues(auditActions, {
    'project.created': 'A project was created.',
    'project.updated': "A project's settings changed (its retention).",
    'api_key.created': 'An API key was created.',
    'api_key.revoked': 'An API key was revoked.',
    'user.created': 'A user was created.',
    'user.updated': "A user's name or administrator status changed.",
    'membership.added': 'A user was added to the project.',
    'membership.role_changed': "A member's role changed.",
    'membership.removed': 'A member was removed from the project.',
    'password_link.issued': 'A one-time link to set a password was issued.',
    'password.set': 'A user set their password through a link.',
    'login.succeeded': 'A user signed in.',
    'login.failed': 'A sign-in was refused (wrong email or password, or throttled).',
    logout: 'A user signed out.',
  }),
});

const ActorType = builder.enumType('AuditActorType', {
  description: 'What kind of actor acted.',
  values: upperCaseValues(['api_key', 'user', 'system'] as const, {
    api_key: 'An API key.',
    user: 'A signed-in user (or, for a failed login, the email tried).',
    system: 'The service itself: ASSAY_INIT_* variables, the command line.',
  }),
});

export const AuditEvent = builder.node(builder.objectRef<AuditEventRow>('AuditEvent'), {
  description: 'One change of access, with who made it, when and from where. Events are never changed or deleted.',
  id: { resolve: (row) => row.id },
  // Like the log itself: the caller's project's events, for an admin only.
  loadMany: async (ids, ctx) => inIdOrder(ids, await findAuditEvents(ctx, ids)),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    action: t.field({ type: AuditAction, description: 'What happened.', resolve: (row) => row.action as (typeof auditActions)[number] }),
    actorType: t.field({
      type: ActorType,
      description: 'Who acted: a key, a user or the service.',
      resolve: (row) => row.actorType as 'api_key' | 'user' | 'system',
    }),
    actorId: t.exposeString('actorId', { nullable: true, description: "The actor's REST id (a key's or a user's); null for the service or an unknown email." }),
    actorLabel: t.exposeString('actorLabel', {
      nullable: true,
      description: "What identified the actor when it acted: a key's name and prefix, a user's email.",
    }),
    targetType: t.exposeString('targetType', { nullable: true, description: 'The kind of thing acted on: project, api_key, user.' }),
    targetId: t.exposeString('targetId', { nullable: true, description: 'The REST id of the thing acted on.' }),
    details: t.field({
      type: 'JSON',
      nullable: true,
      description: 'What else the action carried: scopes, roles before and after, why a login failed.',
      resolve: (row) => auditDetails(row),
    }),
    ip: t.exposeString('ip', { nullable: true, description: 'The address the request came from.' }),
    userAgent: t.exposeString('userAgent', { nullable: true, description: "The request's User-Agent." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it happened.' }),
  }),
});

/** A cursor is an event's id (UUID v7, which orders events in time). */
function eventCursor(cursor: string | undefined, arg: 'after' | 'before'): string | undefined {
  if (cursor !== undefined && !z.uuid().safeParse(cursor).success) throw ValidationError.at(['query', arg], 'Invalid cursor', 'value_error');
  return cursor;
}

const AuditEventConnection = builder.connectionObject(
  { type: AuditEvent, name: 'AuditEventConnection', description: 'Audit events, newest first, a page at a time.' },
  { description: 'An audit event and its cursor.' },
);

builder.queryFields((t) => ({
  auditEvents: t.connection(
    {
      type: AuditEvent,
      description: "The caller's project's audit log, newest first: its own events and its members' logins (needs the admin scope).",
      extensions: { scope: 'admin' },
      args: { action: t.arg({ type: AuditAction, description: 'Only events of this action.' }) },
      resolve: (_root, args, ctx) =>
        resolveCursorConnection<Promise<AuditEventRow[]>>({ args, toCursor: (row) => row.id }, ({ after, before, limit, inverted }) =>
          listAuditEvents(
            ctx,
            ctx.projectId,
            { action: args.action ?? undefined },
            { after: eventCursor(after, 'after'), before: eventCursor(before, 'before'), limit, fromOldest: inverted },
          ),
        ),
    },
    AuditEventConnection,
  ),
}));
