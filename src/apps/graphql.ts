// GraphQL types, queries and mutations of apps and variants. Inputs carry the REST field names
// and are validated by the same schemas (inputs.ts); resolvers call the same operations.
import { ActorType } from '../auth/audit/graphql.js';
import { builder } from '../shared/graphql/builder.js';
import { countedConnection } from '../shared/graphql/connections.js';
import { globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { Metrics, ScoreSummary, TraceConnection } from '../observability/search/graphql.js';
import { TraceRef } from '../observability/traces/graphql.js';
import * as deployments from './deployments.js';
import * as revisionTraces from './revision-traces.js';
import { createAppInput, createEnvironmentInput, createVariantInput, deployInput, updateVariantParametersInput, variantKinds } from './inputs.js';
import * as apps from './operations.js';

const latestRevision = { revisions: { orderBy: { revision: 'desc' as const }, take: 1 } };

export const App = builder.prismaNode('App', {
  description: 'An LLM application: a name for its variants, test sets, evaluator configs and evaluations (REST `/apps`).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name', { description: 'Unique within the project (REST `app_name`).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it was last renamed.' }),
    variants: t.relatedConnection(
      'variants',
      { cursor: 'id', description: 'Its variants in creation order.', query: { orderBy: { id: 'asc' } }, totalCount: true },
      VariantConnection,
    ),
    environments: t.field({
      type: [Environment],
      description: 'Its environments (development, staging, production and its own), in creation order, each with what it serves.',
      resolve: (app, _args, ctx) => deployments.listEnvironments(ctx, app.id),
    }),
  }),
});

const VariantKind = builder.enumType('VariantKind', {
  description: 'How a variant is run (docs/resources.md#variants).',
  values: upperCaseValues(variantKinds, {
    endpoint: "An HTTP service of the user's at `uri`, POSTed each test case with the parameters.",
    prompt: 'A chat completion request in `parameters`, run by Assay against an OpenAI-compatible provider.',
  }),
});

export const Variant = builder.prismaNode('Variant', {
  description: 'One way of running an app, an HTTP endpoint or a prompt, versioned by revision (REST `/variants`).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name', { description: 'Unique within its app (REST `variant_name`).' }),
    appId: t.id({ description: 'Global id of its app.', resolve: (variant) => globalId('App', variant.appId) }),
    kind: t.expose('kind', { type: VariantKind, description: 'How it is run; set at creation.' }),
    revision: t.exposeInt('revision', { description: 'Number of the newest revision.' }),
    uri: t.string({
      nullable: true,
      description: "The endpoint's URL in the newest revision; null when it has none (prompt variants).",
      select: latestRevision,
      resolve: (variant) => variant.revisions[0]?.uri ?? null,
    }),
    parameters: t.field({
      type: 'JSON',
      description: "The newest revision's parameters (a prompt's chat completion request); {} when it has none.",
      select: latestRevision,
      resolve: (variant) => variant.revisions[0]?.parameters ?? {},
    }),
    revisions: t.relation('revisions', { description: 'Every revision, oldest first.', query: { orderBy: { revision: 'asc' } } }),
    app: t.relation('app', { description: 'The app it belongs to.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed (a new revision, for one).' }),
  }),
});

const RevisionStats = builder.objectRef<revisionTraces.RevisionStats>('RevisionStats').implement({
  description: "What a variant revision's traces add up to, in one environment or all (docs/deployments.md#traces-of-a-revision).",
  fields: (t) => ({
    environment: t.exposeString('environment', { nullable: true, description: 'The environment counted; null for all but evaluations.' }),
    traces: t.expose('traces', { type: Metrics, description: 'Count, errors, cost, tokens and latency percentiles of its traces.' }),
    scores: t.expose('scores', { type: [ScoreSummary], description: 'The scores of its traces (and their spans), per name and data type.' }),
  }),
});

export const VariantRevision = builder.prismaNode('VariantRevision', {
  description: "A variant's uri and parameters as one change left them; evaluations pin the revision they ran.",
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, variant: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    variantId: t.id({ description: 'Global id of its variant.', resolve: (revision) => globalId('Variant', revision.variantId) }),
    variant: t.relation('variant', { description: 'Its variant.' }),
    revision: t.exposeInt('revision', { description: 'Its number within the variant: 1, 2, and so on.' }),
    uri: t.exposeString('uri', { nullable: true, description: "The endpoint's URL; null when none was set." }),
    parameters: t.expose('parameters', { type: 'JSON', description: 'The parameters, as sent to an endpoint or run as a prompt.' }),
    message: t.exposeString('message', { nullable: true, description: 'Why the change was made (a Langfuse commitMessage); null when none was given.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the change was made.' }),
    traces: t.connection(
      {
        type: TraceRef,
        description: 'The traces whose spans name this revision (docs/deployments.md#traces-of-a-revision), newest first.',
        args: { environment: t.arg.string({ description: "Only this environment's; every one but Assay's evaluations when absent." }) },
        resolve: (revision, args, ctx) => revisionTraces.revisionTraces(ctx, revision.id, args.environment ?? null, args),
      },
      TraceConnection,
    ),
    stats: t.field({
      type: RevisionStats,
      description: "Count, cost, tokens, latency and scores of this revision's traces.",
      args: { environment: t.arg.string({ description: "Only this environment's; every one but Assay's evaluations when absent." }) },
      resolve: (revision, args, ctx) => revisionTraces.revisionStats(ctx, revision.id, args.environment ?? null),
    }),
    production: t.field({
      type: RevisionStats,
      description: "`stats` of its traces in production: what two revisions' comparison in production shows.",
      resolve: (revision, _args, ctx) => revisionTraces.revisionStats(ctx, revision.id, 'production'),
    }),
  }),
});

const Environment = builder.prismaNode('Environment', {
  description: "Where an app's variant revisions are deployed, read by the app by name (docs/deployments.md; REST `/apps/{id}/environments`).",
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name', { description: 'Unique within its app; development, staging and production are every app’s.' }),
    revision: t.relation('revision', { nullable: true, description: 'The revision it serves now; null before the first deployment.' }),
    deployedAt: t.expose('deployedAt', { type: 'DateTime', nullable: true, description: 'When the revision it serves was deployed.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    deployments: t.relatedConnection(
      'deployments',
      { cursor: 'id', description: 'Its deployments, newest first: what a rollback picks from.', query: { orderBy: { id: 'desc' } } },
      builder.connectionObject(
        { type: Deployment, name: 'DeploymentConnection', description: 'Deployments, a page at a time.' },
        { description: 'A deployment and its cursor.' },
      ),
    ),
  }),
});

const Deployment = builder.prismaNode('Deployment', {
  description: 'One deployment of a revision to an environment: who and when (also in the audit log).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, environment: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    revision: t.relation('revision', { description: 'The revision deployed.' }),
    actorType: t.field({ type: ActorType, description: 'What kind of actor deployed it.', resolve: (row) => row.actorType as 'api_key' | 'user' | 'system' }),
    actorLabel: t.exposeString('actorLabel', { nullable: true, description: "What identified the actor then (a key's name and prefix, a user's email)." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was deployed.' }),
  }),
});

const AppConnection = builder.connectionObject(
  { type: App, name: 'AppConnection', description: 'Apps, a page at a time.' },
  { description: 'An app and its cursor.' },
);
const VariantConnection = countedConnection(Variant, {
  name: 'VariantConnection',
  description: 'Variants, a page at a time, and how many there are.',
  edge: 'A variant and its cursor.',
});

const CreateAppInput = builder.inputType('CreateAppInput', {
  description: "An app's name, to create it or to rename it (REST `POST /apps`, `PATCH /apps/{id}`).",
  fields: (t) => ({ appName: t.string({ required: true, description: 'Unique within the project; 1 to 255 characters.' }) }),
});

const CreateVariantInput = builder.inputType('CreateVariantInput', {
  description: 'A new variant and its first revision (REST `POST /apps/{app_id}/variants`).',
  fields: (t) => ({
    variantName: t.string({ required: true, description: 'Unique within the app.' }),
    kind: t.field({ type: VariantKind, required: true, description: 'How it is run; decides whether uri or parameters is required.' }),
    uri: t.string({ description: 'Required for ENDPOINT: the http(s) URL each test case is POSTed to.' }),
    parameters: t.field({
      type: 'JSON',
      description: 'Required for PROMPT: `model`, `messages` with `{column}` placeholders, optional `temperature`, `max_tokens`, `top_p`, `response_format`.',
    }),
    message: t.string({ description: 'Why this revision was made, kept with it.' }),
  }),
});

const UpdateVariantParametersInput = builder.inputType('UpdateVariantParametersInput', {
  description: "A variant's next revision (REST `PUT /variants/{id}/parameters`).",
  fields: (t) => ({
    parameters: t.field({ type: 'JSON', required: true, description: "The new parameters, whole; a prompt's must stay runnable." }),
    uri: t.string({ description: "The endpoint's new URL; absent or null keeps the current one." }),
    message: t.string({ description: 'Why this revision was made, kept with it.' }),
  }),
});

const CreateEnvironmentInput = builder.inputType('CreateEnvironmentInput', {
  description: 'A new environment of an app (REST `POST /apps/{id}/environments`).',
  fields: (t) => ({ name: t.string({ required: true, description: 'Unique within the app: letters, digits, `_`, `-` and `.`, up to 64.' }) }),
});

const DeployInput = builder.inputType('DeployInput', {
  description: 'What to deploy (REST `POST /apps/{id}/environments/{name}/deploy`).',
  fields: (t) => ({
    variantId: t.globalID({ for: Variant, required: true, description: 'Global id of one of the app’s variants.' }),
    revision: t.int({ description: "The revision's number (an older one rolls back); the variant's newest when absent." }),
  }),
});

builder.queryFields((t) => ({
  app: t.prismaField({
    type: 'App',
    nullable: true,
    description: 'The app with this global id; null, with a NOT_FOUND error, when the project has none.',
    args: { id: t.arg.globalID({ for: App, required: true, description: 'Global id of the app.' }) },
    resolve: (query, _root, args, ctx) => apps.getApp(ctx, args.id.id, query),
  }),
  apps: t.prismaConnection(
    {
      type: 'App',
      cursor: 'id',
      description: "The project's apps in creation order (REST `GET /apps`).",
      args: { appName: t.arg.string({ description: 'Only the app with exactly this name.' }) },
      resolve: (query, _root, args, ctx) => apps.listApps(ctx, { app_name: args.appName ?? undefined }, query),
    },
    AppConnection,
  ),
  variant: t.prismaField({
    type: 'Variant',
    nullable: true,
    description: 'The variant with this global id; null, with a NOT_FOUND error, when the project has none.',
    args: { id: t.arg.globalID({ for: Variant, required: true, description: 'Global id of the variant.' }) },
    resolve: (query, _root, args, ctx) => apps.getVariant(ctx, args.id.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createApp: t.prismaField({
    type: 'App',
    description: 'Creates an app; a name the project already has is a CONFLICT error (REST `POST /apps`).',
    args: { input: t.arg({ type: CreateAppInput, required: true, description: 'Its name.' }) },
    resolve: async (query, _root, args, ctx) => {
      const app = await apps.createApp(ctx, parseInput(createAppInput, restFields(args.input), 'body'));
      return apps.getApp(ctx, app.id, query);
    },
  }),
  updateApp: t.prismaField({
    type: 'App',
    description: 'Renames an app; a name the project already has is a CONFLICT error (REST `PATCH /apps/{id}`).',
    args: {
      id: t.arg.globalID({ for: App, required: true, description: 'Global id of the app.' }),
      input: t.arg({ type: CreateAppInput, required: true, description: 'The new name.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      await apps.renameApp(ctx, args.id.id, parseInput(createAppInput, restFields(args.input), 'body'));
      return apps.getApp(ctx, args.id.id, query);
    },
  }),
  deleteApp: t.id({
    description: 'Deletes the app with its variants, evaluator configs and evaluations (its test sets stay, detached); answers its global id.',
    args: { id: t.arg.globalID({ for: App, required: true, description: 'Global id of the app.' }) },
    resolve: async (_root, args, ctx) => {
      await apps.deleteApp(ctx, args.id.id);
      return globalId('App', args.id.id);
    },
  }),
  createVariant: t.prismaField({
    type: 'Variant',
    description: 'Creates a variant at revision 1; a name the app already has is a CONFLICT error (REST `POST /apps/{app_id}/variants`).',
    args: {
      appId: t.arg.globalID({ for: App, required: true, description: 'Global id of the app it belongs to.' }),
      input: t.arg({ type: CreateVariantInput, required: true, description: 'Its name, kind and first revision.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const variant = await apps.createVariant(ctx, args.appId.id, parseInput(createVariantInput, restFields(args.input), 'body'));
      return apps.getVariant(ctx, variant.id, query);
    },
  }),
  updateVariantParameters: t.prismaField({
    type: 'Variant',
    description: 'Makes a new revision of the variant; earlier ones stay readable and pinned by evaluations.',
    args: {
      id: t.arg.globalID({ for: Variant, required: true, description: 'Global id of the variant.' }),
      input: t.arg({ type: UpdateVariantParametersInput, required: true, description: 'The new revision.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(updateVariantParametersInput, restFields(args.input), 'body');
      await apps.updateVariantParameters(ctx, args.id.id, input);
      return apps.getVariant(ctx, args.id.id, query);
    },
  }),
  createEnvironment: t.prismaField({
    type: 'Environment',
    description: 'Adds an environment to an app; a name it has is a CONFLICT error.',
    args: {
      appId: t.arg.globalID({ for: App, required: true, description: 'Global id of the app.' }),
      input: t.arg({ type: CreateEnvironmentInput, required: true, description: 'Its name.' }),
    },
    resolve: async (_query, _root, args, ctx) => deployments.createEnvironment(ctx, args.appId.id, parseInput(createEnvironmentInput, args.input, 'body').name),
  }),
  deleteEnvironment: t.id({
    description: "Deletes an app's own environment with its history (development, staging and production stay: CONFLICT); answers its global id.",
    args: {
      appId: t.arg.globalID({ for: App, required: true, description: 'Global id of the app.' }),
      name: t.arg.string({ required: true, description: 'The environment’s name.' }),
    },
    resolve: async (_root, args, ctx) => {
      return globalId('Environment', (await deployments.deleteEnvironment(ctx, args.appId.id, args.name)).id);
    },
  }),
  deploy: t.prismaField({
    type: 'Environment',
    description: 'Deploys a revision of one of the app’s variants to the environment (a rollback with an older one); recorded with who and when.',
    args: {
      appId: t.arg.globalID({ for: App, required: true, description: 'Global id of the app.' }),
      environment: t.arg.string({ required: true, description: 'The environment’s name.' }),
      input: t.arg({ type: DeployInput, required: true, description: 'The variant and revision.' }),
    },
    resolve: async (_query, _root, args, ctx) => {
      const input = parseInput(deployInput, { variant_id: args.input.variantId.id, revision: args.input.revision ?? undefined }, 'body');
      return deployments.deploy(ctx, args.appId.id, args.environment, input);
    },
  }),
  deleteVariant: t.id({
    description: 'Deletes the variant with its revisions; answers its global id.',
    args: { id: t.arg.globalID({ for: Variant, required: true, description: 'Global id of the variant.' }) },
    resolve: async (_root, args, ctx) => {
      await apps.deleteVariant(ctx, args.id.id);
      return globalId('Variant', args.id.id);
    },
  }),
}));
