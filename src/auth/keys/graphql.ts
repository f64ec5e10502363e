// GraphQL of API keys (docs/access.md#projects-and-keys), calling the same operations as REST.
// Every field needs the admin scope (`extensions.scope`, src/graphql/scopes.ts).
import { encodeGlobalID } from '@pothos/plugin-relay';
import { scopes } from '../../shared/context.js';
import { NotFoundError } from '../../shared/errors.js';
import { builder } from '../../shared/graphql/builder.js';
import { inIdOrder } from '../../shared/graphql/ids.js';
import { upperCaseValues } from '../../shared/graphql/names.js';
import { parseInput } from '../../shared/validation.js';
import { createApiKeyInput } from './inputs.js';
import * as keys from './operations.js';

const admin = { scope: 'admin' };

const ScopeEnum = builder.enumType('Scope', {
  description: 'What an API key may do (docs/access.md#scopes).',
  values: upperCaseValues(scopes, {
    read: 'Queries and subscriptions.',
    write: 'Mutations.',
    ingest: 'Sending spans (OTLP, `POST /observability/trace`, `ingestTrace`).',
    admin: 'Managing projects and API keys.',
    feedback:
      'Writing scores only (`POST /scores`, `upsertScores`), never another author’s, and reading nothing: for a web page’s feedback buttons. `WRITE` includes it.',
  }),
});

const ApiKey = builder.node(builder.objectRef<keys.ApiKeyRow>('ApiKey'), {
  description: "A project's API key. Its secret is never shown again after the mutation that creates it.",
  id: { resolve: (row) => row.id },
  // Like `apiKeys`: the caller's project's keys, for an admin only.
  loadMany: async (ids, ctx) => inIdOrder(ids, await keys.findApiKeys(ctx, ids)),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses (`DELETE /api-keys/{api_key_id}`).' }),
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

export const CreatedApiKey = builder.objectRef<{ row: keys.ApiKeyRow; key: string }>('CreatedApiKey').implement({
  description: 'A new API key with its secret, which no other answer carries.',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKey, description: 'The key as later answers show it.', resolve: ({ row }) => row }),
    key: t.exposeString('key', { description: 'The secret: send it as `Authorization: Bearer <key>`.' }),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key (REST: the body of `POST /projects/{project_id}/api-keys`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'A label for people, e.g. "otel-collector".' }),
    scopes: t.field({ type: [ScopeEnum], required: true, description: 'What the key may do; at least one.' }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKey],
    description: "The caller's project's API keys, without their secret (needs the admin scope).",
    extensions: admin,
    resolve: (_root, _args, ctx) => keys.listApiKeys(ctx, ctx.projectId),
  }),
}));

builder.mutationFields((t) => ({
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
