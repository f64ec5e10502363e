// GraphQL types, queries and mutations of evaluators and evaluator configs. Inputs carry the REST
// field names and are validated by the same schemas (inputs.ts); resolvers call the same operations.
import { builder } from '../shared/graphql/builder.js';
import { App } from '../apps/graphql.js';
import { globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { createEvaluatorConfigInput } from './inputs.js';
import * as evaluators from './operations.js';
import { type Evaluator, type EvaluatorSetting, resultTypes, settingTypes } from './registry.js';

const EvaluatorResultType = builder.enumType('EvaluatorResultType', { values: upperCaseValues(resultTypes) });
const EvaluatorSettingType = builder.enumType('EvaluatorSettingType', { values: upperCaseValues(settingTypes) });

type NamedSetting = EvaluatorSetting & { name: string };

const EvaluatorSettingRef = builder.objectRef<NamedSetting>('EvaluatorSetting').implement({
  description: "One field of an evaluator's settings form.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The key of the field in settingsValues.' }),
    label: t.exposeString('label'),
    type: t.expose('type', { type: EvaluatorSettingType }),
    default: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Filled in when the field is absent; null for required fields.',
      resolve: (setting) => setting.default ?? null,
    }),
    required: t.exposeBoolean('required'),
    description: t.exposeString('description'),
    min: t.exposeFloat('min', { nullable: true, description: 'Inclusive lower bound of a number.' }),
    max: t.exposeFloat('max', { nullable: true, description: 'Inclusive upper bound of a number.' }),
    options: t.stringList({
      nullable: true,
      description: 'The choices of a MULTIPLE_CHOICE field.',
      resolve: (setting) => (setting.options ? [...setting.options] : null),
    }),
  }),
});

const EvaluatorRef = builder.objectRef<Evaluator>('Evaluator').implement({
  description: 'A built-in evaluator.',
  fields: (t) => ({
    key: t.exposeString('key'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    resultType: t.expose('result_type', { type: EvaluatorResultType }),
    requiresLlmApiKeys: t.exposeBoolean('requires_llm_api_keys'),
    settingsTemplate: t.field({
      type: [EvaluatorSettingRef],
      description: 'The fields of the settings form, in display order.',
      resolve: (evaluator) => Object.entries(evaluator.settings_template).map(([name, setting]) => ({ name, ...setting })),
    }),
  }),
});

export const EvaluatorConfig = builder.prismaNode('EvaluatorConfig', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name'),
    appId: t.id({ resolve: (config) => globalId('App', config.appId) }),
    app: t.relation('app'),
    evaluatorKey: t.exposeString('evaluatorKey'),
    settingsValues: t.expose('settingsValues', { type: 'JSON' }),
    evaluator: t.field({
      type: EvaluatorRef,
      nullable: true,
      description: 'The evaluator this config sets up (null if it is no longer built in).',
      select: { evaluatorKey: true },
      resolve: (config) => evaluators.getEvaluator(config.evaluatorKey) ?? null,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const EvaluatorConfigConnection = builder.connectionObject(
  { type: EvaluatorConfig, name: 'EvaluatorConfigConnection', description: 'Evaluator configs, a page at a time.' },
  { description: 'An evaluator config and its cursor.' },
);

const CreateEvaluatorConfigInput = builder.inputType('CreateEvaluatorConfigInput', {
  fields: (t) => ({
    appId: t.globalID({ for: App, required: true }),
    name: t.string({ required: true }),
    evaluatorKey: t.string({ required: true, description: 'The key of a built-in evaluator (query `evaluators`).' }),
    settingsValues: t.field({ type: 'JSON', required: true, description: "Values for the fields of the evaluator's settingsTemplate." }),
  }),
});

const UpdateEvaluatorConfigInput = builder.inputType('UpdateEvaluatorConfigInput', {
  fields: (t) => ({
    name: t.string(),
    settingsValues: t.field({ type: 'JSON', description: 'Replaces the settings whole; absent fields get their defaults.' }),
  }),
});

builder.queryFields((t) => ({
  evaluators: t.field({
    type: [EvaluatorRef],
    resolve: () => [...evaluators.listEvaluators()],
  }),
  evaluator: t.field({
    type: EvaluatorRef,
    nullable: true,
    args: { key: t.arg.string({ required: true }) },
    resolve: (_root, args) => evaluators.getEvaluator(args.key) ?? null,
  }),
  evaluatorConfig: t.prismaField({
    type: 'EvaluatorConfig',
    nullable: true,
    args: { id: t.arg.globalID({ for: EvaluatorConfig, required: true }) },
    resolve: (query, _root, args, ctx) => evaluators.getEvaluatorConfig(ctx, args.id.id, query),
  }),
  evaluatorConfigs: t.prismaConnection(
    {
      type: 'EvaluatorConfig',
      cursor: 'id',
      description: "The project's evaluator configs in creation order, of one app when appId is given.",
      args: { appId: t.arg.globalID({ for: App }) },
      resolve: (query, _root, args, ctx) => evaluators.listEvaluatorConfigs(ctx, { app_id: args.appId?.id }, query),
    },
    EvaluatorConfigConnection,
  ),
}));

builder.mutationFields((t) => ({
  createEvaluatorConfig: t.prismaField({
    type: 'EvaluatorConfig',
    args: { input: t.arg({ type: CreateEvaluatorConfigInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const config = await evaluators.createEvaluatorConfig(ctx, parseInput(createEvaluatorConfigInput, restFields(args.input), 'body'));
      return evaluators.getEvaluatorConfig(ctx, config.id, query);
    },
  }),
  updateEvaluatorConfig: t.prismaField({
    type: 'EvaluatorConfig',
    args: { id: t.arg.globalID({ for: EvaluatorConfig, required: true }), input: t.arg({ type: UpdateEvaluatorConfigInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      await evaluators.updateEvaluatorConfig(ctx, args.id.id, restFields(args.input));
      return evaluators.getEvaluatorConfig(ctx, args.id.id, query);
    },
  }),
  deleteEvaluatorConfig: t.id({
    description: 'Deletes the config; answers its global id.',
    args: { id: t.arg.globalID({ for: EvaluatorConfig, required: true }) },
    resolve: async (_root, args, ctx) => {
      await evaluators.deleteEvaluatorConfig(ctx, args.id.id);
      return globalId('EvaluatorConfig', args.id.id);
    },
  }),
}));
