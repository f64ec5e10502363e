// GraphQL types, queries and mutations of apps and variants. Inputs carry the REST field names
// and are validated by the same schemas (inputs.ts); resolvers call the same operations.
import { builder } from '../shared/graphql/builder.js';
import { globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { createAppInput, createVariantInput, updateVariantParametersInput, variantKinds } from './inputs.js';
import * as apps from './operations.js';

const latestRevision = { revisions: { orderBy: { revision: 'desc' as const }, take: 1 } };

export const App = builder.prismaNode('App', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    variants: t.relatedConnection('variants', { cursor: 'id', query: { orderBy: { id: 'asc' } } }, VariantConnection),
  }),
});

const VariantKind = builder.enumType('VariantKind', { values: upperCaseValues(variantKinds) });

export const Variant = builder.prismaNode('Variant', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name'),
    appId: t.id({ resolve: (variant) => globalId('App', variant.appId) }),
    kind: t.expose('kind', { type: VariantKind }),
    revision: t.exposeInt('revision', { description: 'Number of the newest revision.' }),
    uri: t.string({ nullable: true, select: latestRevision, resolve: (variant) => variant.revisions[0]?.uri ?? null }),
    parameters: t.field({ type: 'JSON', select: latestRevision, resolve: (variant) => variant.revisions[0]?.parameters ?? {} }),
    revisions: t.relation('revisions', { query: { orderBy: { revision: 'asc' } } }),
    app: t.relation('app'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaNode('VariantRevision', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, variant: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    variantId: t.id({ resolve: (revision) => globalId('Variant', revision.variantId) }),
    revision: t.exposeInt('revision'),
    uri: t.exposeString('uri', { nullable: true }),
    parameters: t.expose('parameters', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AppConnection = builder.connectionObject(
  { type: App, name: 'AppConnection', description: 'Apps, a page at a time.' },
  { description: 'An app and its cursor.' },
);
const VariantConnection = builder.connectionObject(
  { type: Variant, name: 'VariantConnection', description: 'Variants, a page at a time.' },
  { description: 'A variant and its cursor.' },
);

const CreateAppInput = builder.inputType('CreateAppInput', {
  fields: (t) => ({ appName: t.string({ required: true }) }),
});

const CreateVariantInput = builder.inputType('CreateVariantInput', {
  fields: (t) => ({
    variantName: t.string({ required: true }),
    kind: t.field({ type: VariantKind, required: true }),
    uri: t.string(),
    parameters: t.field({ type: 'JSON' }),
  }),
});

const UpdateVariantParametersInput = builder.inputType('UpdateVariantParametersInput', {
  fields: (t) => ({
    parameters: t.field({ type: 'JSON', required: true }),
    uri: t.string(),
  }),
});

builder.queryFields((t) => ({
  app: t.prismaField({
    type: 'App',
    nullable: true,
    args: { id: t.arg.globalID({ for: App, required: true }) },
    resolve: (query, _root, args, ctx) => apps.getApp(ctx, args.id.id, query),
  }),
  apps: t.prismaConnection(
    {
      type: 'App',
      cursor: 'id',
      args: { appName: t.arg.string() },
      resolve: (query, _root, args, ctx) => apps.listApps(ctx, { app_name: args.appName ?? undefined }, query),
    },
    AppConnection,
  ),
  variant: t.prismaField({
    type: 'Variant',
    nullable: true,
    args: { id: t.arg.globalID({ for: Variant, required: true }) },
    resolve: (query, _root, args, ctx) => apps.getVariant(ctx, args.id.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createApp: t.prismaField({
    type: 'App',
    args: { input: t.arg({ type: CreateAppInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const app = await apps.createApp(ctx, parseInput(createAppInput, restFields(args.input), 'body'));
      return apps.getApp(ctx, app.id, query);
    },
  }),
  updateApp: t.prismaField({
    type: 'App',
    args: { id: t.arg.globalID({ for: App, required: true }), input: t.arg({ type: CreateAppInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      await apps.renameApp(ctx, args.id.id, parseInput(createAppInput, restFields(args.input), 'body'));
      return apps.getApp(ctx, args.id.id, query);
    },
  }),
  deleteApp: t.id({
    description: 'Deletes the app; answers its global id.',
    args: { id: t.arg.globalID({ for: App, required: true }) },
    resolve: async (_root, args, ctx) => {
      await apps.deleteApp(ctx, args.id.id);
      return globalId('App', args.id.id);
    },
  }),
  createVariant: t.prismaField({
    type: 'Variant',
    args: { appId: t.arg.globalID({ for: App, required: true }), input: t.arg({ type: CreateVariantInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const variant = await apps.createVariant(ctx, args.appId.id, parseInput(createVariantInput, restFields(args.input), 'body'));
      return apps.getVariant(ctx, variant.id, query);
    },
  }),
  updateVariantParameters: t.prismaField({
    type: 'Variant',
    args: { id: t.arg.globalID({ for: Variant, required: true }), input: t.arg({ type: UpdateVariantParametersInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(updateVariantParametersInput, restFields(args.input), 'body');
      await apps.updateVariantParameters(ctx, args.id.id, input);
      return apps.getVariant(ctx, args.id.id, query);
    },
  }),
  deleteVariant: t.id({
    description: 'Deletes the variant; answers its global id.',
    args: { id: t.arg.globalID({ for: Variant, required: true }) },
    resolve: async (_root, args, ctx) => {
      await apps.deleteVariant(ctx, args.id.id);
      return globalId('Variant', args.id.id);
    },
  }),
}));
