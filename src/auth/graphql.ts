// GraphQL types, queries and mutations of projects and API keys (docs/access.md), calling the
// same operations as REST. Fields are camelCase and ids Relay global ids. The admin fields say so
// in `extensions.scope`, which src/graphql/scopes.ts checks before the operation runs.
import { encodeGlobalID } from '@pothos/plugin-relay';
import { scopes } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { builder } from '../shared/graphql/builder.js';
import { parseInput } from '../shared/validation.js';
import { createApiKeyInput, createProjectInput } from './inputs.js';
import * as keys from './operations.js';

type ProjectRow = Awaited<ReturnType<typeof keys.callerProjects>>[number];

const admin = { scope: 'admin' };

const ScopeEnum = builder.enumType('Scope', {
  description: 'What a credential may do: read (queries, subscriptions), write (mutations), ingest (spans), admin (keys, projects).',
  values: scopes,
});

const Project = builder.objectRef<ProjectRow>('Project').implement({
  description: 'A tenant: every other object belongs to one.',
  fields: (t) => ({
    id: t.globalID({ resolve: (project) => ({ type: 'Project', id: project.id }) }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ApiKey = builder.objectRef<keys.ApiKeyRow>('ApiKey').implement({
  description: "A project's API key. Its secret is never shown again after the mutation that creates it.",
  fields: (t) => ({
    id: t.globalID({ resolve: (row) => ({ type: 'ApiKey', id: row.id }) }),
    name: t.exposeString('name'),
    scopes: t.field({ type: [ScopeEnum], resolve: (row) => keys.scopesOf(row) }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'Updated at most once a minute.' }),
  }),
});

const CreatedApiKey = builder.objectRef<{ row: keys.ApiKeyRow; key: string }>('CreatedApiKey').implement({
  description: 'A new API key with its secret, which no other answer carries.',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKey, resolve: ({ row }) => row }),
    key: t.exposeString('key', { description: 'The secret: send it as `Authorization: Bearer <key>`.' }),
  }),
});

const CreatedProject = builder.objectRef<Awaited<ReturnType<typeof keys.createProjectWithKey>>>('CreatedProject').implement({
  description: 'A new project and its first API key, holding every scope.',
  fields: (t) => ({
    project: t.field({ type: Project, resolve: ({ project }) => project }),
    apiKey: t.field({ type: CreatedApiKey, resolve: ({ apiKey, key }) => ({ row: apiKey, key }) }),
  }),
});

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  fields: (t) => ({ name: t.string({ required: true }) }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({ name: t.string({ required: true }), scopes: t.field({ type: [ScopeEnum], required: true }) }),
});

builder.queryFields((t) => ({
  projects: t.field({
    type: [Project],
    description: "The caller's projects: its API key's (every project when auth is off).",
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
    args: { input: t.arg({ type: CreateProjectInput, required: true }) },
    resolve: (_root, args, ctx) => keys.createProjectWithKey(ctx, parseInput(createProjectInput, args.input, 'body')),
  }),
  createApiKey: t.field({
    type: CreatedApiKey,
    description: "A new API key in the caller's project (needs the admin scope).",
    extensions: admin,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, args, ctx) => keys.createApiKey(ctx, ctx.projectId, parseInput(createApiKeyInput, args.input, 'body')),
  }),
  revokeApiKey: t.field({
    type: 'ID',
    description: 'Revokes an API key at once; answers its id (needs the admin scope).',
    extensions: admin,
    args: { id: t.arg.globalID({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      if (id.typename !== 'ApiKey') throw new NotFoundError('API key', id.id);
      await keys.revokeApiKey(ctx, id.id);
      return encodeGlobalID('ApiKey', id.id);
    },
  }),
}));
