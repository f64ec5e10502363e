// GraphQL types, queries and mutations of projects and API keys (docs/access.md), calling the
// same operations as REST. Fields are camelCase and ids Relay global ids. The admin fields say so
// in `extensions.scope`, which src/graphql/scopes.ts checks before the operation runs.
import { encodeGlobalID } from '@pothos/plugin-relay';
import { scopes } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { builder } from '../shared/graphql/builder.js';
import { upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { createApiKeyInput, createProjectInput } from './inputs.js';
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
    name: t.exposeString('name', { description: "The project's name." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the project was created.' }),
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

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key (REST: the body of `POST /projects/{project_id}/api-keys`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'A label for people, e.g. "otel-collector".' }),
    scopes: t.field({ type: [ScopeEnum], required: true, description: 'What the key may do; at least one.' }),
  }),
});

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
