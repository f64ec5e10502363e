// GraphQL types, queries and mutations of projects and API keys (docs/access.md), calling the
// same operations as REST. Fields are camelCase and ids Relay global ids. The admin fields say so
// in `extensions.scope`, which src/graphql/scopes.ts checks before the operation runs.
import { encodeGlobalID, resolveCursorConnection } from '@pothos/plugin-relay';
import { scopes } from '../shared/context.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { z } from 'zod';
import { builder } from '../shared/graphql/builder.js';
import { upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { auditActions, auditDetails, listAuditEvents, type AuditEventRow } from './audit.js';
import { createApiKeyInput, createProjectInput, updateProjectInput } from './inputs.js';
import * as keys from './operations.js';

type ProjectRow = Awaited<ReturnType<typeof keys.callerProjects>>[number];

const admin = { scope: 'admin' };

const ScopeEnum = builder.enumType('Scope', {
  description: 'What an API key may do (docs/access.md#scopes).',
  values: upperCaseValues(scopes, {
    read: 'Queries and subscriptions.',
    write: 'Mutations.',
    ingest: 'Sending spans (OTLP, `POST /observability/trace`, `ingestTrace`).',
    admin: 'Managing projects and API keys.',
  }),
});

export const Project = builder.objectRef<ProjectRow>('Project').implement({
  description: 'A tenant: every other object belongs to one.',
  fields: (t) => ({
    id: t.globalID({ description: 'Global id: opaque, unique across types.', resolve: (project) => ({ type: 'Project', id: project.id }) }),
    databaseId: t.exposeString('id', { description: 'The id REST uses, and the value of the `X-Assay-Project` header that names the project.' }),
    name: t.exposeString('name', { description: "The project's name." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the project was created.' }),
    retentionDays: t.exposeInt('retentionDays', {
      nullable: true,
      description: "Days a trace is kept after its latest span ends; null: the instance's ASSAY_RETENTION_DAYS, or forever (docs/observability.md#retention).",
    }),
  }),
});

const ApiKey = builder.objectRef<keys.ApiKeyRow>('ApiKey').implement({
  description: "A project's API key. Its secret is never shown again after the mutation that creates it.",
  fields: (t) => ({
    id: t.globalID({ description: 'Global id: opaque, unique across types; pass it to `revokeApiKey`.', resolve: (row) => ({ type: 'ApiKey', id: row.id }) }),
    name: t.exposeString('name', { description: 'A label for people, e.g. "otel-collector".' }),
    scopes: t.field({ type: [ScopeEnum], description: 'What the key may do.', resolve: (row) => keys.scopesOf(row) }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the key was created.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the key last authenticated a request, to within a minute; null when never.',
    }),
  }),
});

const CreatedApiKey = builder.objectRef<{ row: keys.ApiKeyRow; key: string }>('CreatedApiKey').implement({
  description: 'A new API key with its secret, which no other answer carries.',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKey, description: 'The key as later answers show it.', resolve: ({ row }) => row }),
    key: t.exposeString('key', { description: 'The secret: send it as `Authorization: Bearer <key>`.' }),
  }),
});

const CreatedProject = builder.objectRef<Awaited<ReturnType<typeof keys.createProjectWithKey>>>('CreatedProject').implement({
  description: 'A new project and its first API key, holding every scope.',
  fields: (t) => ({
    project: t.field({ type: Project, description: 'The new project.', resolve: ({ project }) => project }),
    apiKey: t.field({ type: CreatedApiKey, description: 'Its first key, with the secret.', resolve: ({ apiKey, key }) => ({ row: apiKey, key }) }),
  }),
});

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  description: 'A new project (REST: the body of `POST /projects`).',
  fields: (t) => ({ name: t.string({ required: true, description: "The project's name." }) }),
});

const UpdateProjectInput = builder.inputType('UpdateProjectInput', {
  description: "A project's settings (REST: the body of `PATCH /projects/{project_id}`); a field left out is left as it is.",
  fields: (t) => ({
    id: t.globalID({ required: true, description: "The global id of the caller's project." }),
    retentionDays: t.int({
      description: "Days a trace is kept after its latest span ends (1 to 3650); null: the instance's ASSAY_RETENTION_DAYS, or forever.",
    }),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key (REST: the body of `POST /projects/{project_id}/api-keys`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'A label for people, e.g. "otel-collector".' }),
    scopes: t.field({ type: [ScopeEnum], required: true, description: 'What the key may do; at least one.' }),
  }),
});

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

const AuditEvent = builder.objectRef<AuditEventRow>('AuditEvent').implement({
  description: 'One change of access, with who made it, when and from where. Events are never changed or deleted.',
  fields: (t) => ({
    id: t.globalID({ description: 'Global id: opaque, unique across types.', resolve: (row) => ({ type: 'AuditEvent', id: row.id }) }),
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
      extensions: admin,
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

builder.queryFields((t) => ({
  projects: t.field({
    type: [Project],
    description: "The caller's projects: its API key's, a signed-in user's memberships' (every project for an instance administrator, and when auth is off).",
    resolve: (_root, _args, ctx) => keys.callerProjects(ctx),
  }),
  apiKeys: t.field({
    type: [ApiKey],
    description: "The caller's project's API keys, without their secret (needs the admin scope).",
    extensions: admin,
    resolve: (_root, _args, ctx) => keys.listApiKeys(ctx, ctx.projectId),
  }),
}));

builder.mutationFields((t) => ({
  createProject: t.field({
    type: CreatedProject,
    description: 'A new project with a first API key holding every scope (needs the admin scope).',
    extensions: admin,
    args: { input: t.arg({ type: CreateProjectInput, required: true, description: 'The project.' }) },
    resolve: (_root, args, ctx) => keys.createProjectWithKey(ctx, parseInput(createProjectInput, args.input, 'body')),
  }),
  updateProject: t.field({
    type: Project,
    description: "Changes the caller's project's settings, its retention (needs the admin scope).",
    extensions: admin,
    args: { input: t.arg({ type: UpdateProjectInput, required: true, description: 'The project and what changes.' }) },
    resolve: (_root, { input }, ctx) => {
      if (input.id.typename !== 'Project') throw new NotFoundError('project', input.id.id);
      const body = input.retentionDays === undefined ? {} : { retention_days: input.retentionDays };
      return keys.updateProject(ctx, input.id.id, parseInput(updateProjectInput, body, 'body'));
    },
  }),
  createApiKey: t.field({
    type: CreatedApiKey,
    description: "A new API key in the caller's project (needs the admin scope).",
    extensions: admin,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: 'The key.' }) },
    resolve: (_root, args, ctx) => keys.createApiKey(ctx, ctx.projectId, parseInput(createApiKeyInput, args.input, 'body')),
  }),
  revokeApiKey: t.field({
    type: 'ID',
    description: 'Revokes an API key at once; answers its id (needs the admin scope).',
    extensions: admin,
    args: { id: t.arg.globalID({ required: true, description: 'The global id of an ApiKey.' }) },
    resolve: async (_root, { id }, ctx) => {
      if (id.typename !== 'ApiKey') throw new NotFoundError('API key', id.id);
      await keys.revokeApiKey(ctx, id.id);
      return encodeGlobalID('ApiKey', id.id);
    },
  }),
}));
