// GraphQL types, queries and mutations of evaluators and evaluator configs. Inputs carry the REST
// field names and are validated by the same schemas (inputs.ts); resolvers call the same operations.
import { builder } from '../shared/graphql/builder.js';
import { App } from '../apps/graphql.js';
import { globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { createEvaluatorConfigInput } from './inputs.js';
import * as evaluators from './operations.js';
import { type Evaluator, type EvaluatorSetting, resultTypes, settingTypes } from './evaluator-types.js';

const EvaluatorResultType = builder.enumType('EvaluatorResultType', {
  description: 'What an evaluator gives each test case.',
  values: upperCaseValues(resultTypes, {
    bool: 'A pass or a fail; aggregated as the share that passed.',
    number: 'A score; aggregated as the mean.',
  }),
});
const EvaluatorSettingType = builder.enumType('EvaluatorSettingType', {
  description: 'How a setting is edited and checked.',
  values: upperCaseValues(settingTypes, {
    string: 'One line of text, at least one character.',
    regex: 'A regular expression in RE2 syntax, its source only, without slashes or flags (docs/evaluators.md#regular-expressions).',
    code: 'Source code, at least one character.',
    url: 'An http(s) URL.',
    number: 'A number, within min and max when they are given.',
    boolean: 'True or false.',
    messages: 'Chat messages `[{role, content}]`, at least one.',
    multiple_choice: 'One of the options.',
  }),
});

type NamedSetting = EvaluatorSetting & { name: string };

const EvaluatorSettingRef = builder.objectRef<NamedSetting>('EvaluatorSetting').implement({
  description: "One field of an evaluator's settings form.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The key of the field in settingsValues.' }),
    label: t.exposeString('label', { description: 'What a form shows beside the field.' }),
    type: t.expose('type', { type: EvaluatorSettingType, description: 'How the value is edited and checked.' }),
    default: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Filled in when the field is absent; null for required fields.',
      resolve: (setting) => setting.default ?? null,
    }),
    required: t.exposeBoolean('required', { description: 'True when the config must give a value (there is no default).' }),
    description: t.exposeString('description', { description: 'What the field does, for a form to show.' }),
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
    key: t.exposeString('key', { description: 'Its identifier, as a config names it (`auto_exact_match`, …).' }),
    name: t.exposeString('name', { description: 'Its name for people.' }),
    description: t.exposeString('description', { description: 'What it computes.' }),
    resultType: t.expose('result_type', { type: EvaluatorResultType, description: 'What it gives each test case.' }),
    requiresLlmApiKeys: t.exposeBoolean('requires_llm_api_keys', {
      description: 'True when it calls a model provider, so an evaluation using it needs that provider key.',
    }),
    settingsTemplate: t.field({
      type: [EvaluatorSettingRef],
      description: 'The fields of the settings form, in display order.',
      resolve: (evaluator) => Object.entries(evaluator.settings_template).map(([name, setting]) => ({ name, ...setting })),
    }),
  }),
});

export const EvaluatorConfig = builder.prismaNode('EvaluatorConfig', {
  description: "A built-in evaluator with an app's settings, saved under a name (REST `/evaluators/configs`).",
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name', { description: 'Unique within its app.' }),
    appId: t.id({ description: 'Global id of its app.', resolve: (config) => globalId('App', config.appId) }),
    app: t.relation('app', { description: 'The app it belongs to.' }),
    evaluatorKey: t.exposeString('evaluatorKey', { description: 'The key of its built-in evaluator.' }),
    settingsValues: t.expose('settingsValues', { type: 'JSON', description: 'The settings, with the defaults filled in when it was saved.' }),
    evaluator: t.field({
      type: EvaluatorRef,
      nullable: true,
      description: 'The evaluator this config sets up (null if it is no longer built in).',
      select: { evaluatorKey: true },
      resolve: (config) => evaluators.getEvaluator(config.evaluatorKey) ?? null,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When its name or settings last changed.' }),
  }),
});

const EvaluatorConfigConnection = builder.connectionObject(
  { type: EvaluatorConfig, name: 'EvaluatorConfigConnection', description: 'Evaluator configs, a page at a time.' },
  { description: 'An evaluator config and its cursor.' },
);

const CreateEvaluatorConfigInput = builder.inputType('CreateEvaluatorConfigInput', {
  description: 'A new evaluator config (REST `POST /evaluators/configs`).',
  fields: (t) => ({
    appId: t.globalID({ for: App, required: true, description: 'Global id of the app it belongs to.' }),
    name: t.string({ required: true, description: 'Unique within the app.' }),
    evaluatorKey: t.string({ required: true, description: 'The key of a built-in evaluator (query `evaluators`).' }),
    settingsValues: t.field({ type: 'JSON', required: true, description: "Values for the fields of the evaluator's settingsTemplate." }),
  }),
});

const UpdateEvaluatorConfigInput = builder.inputType('UpdateEvaluatorConfigInput', {
  description: "A config's new name or settings; the evaluator cannot change (REST `PUT /evaluators/configs/{id}`).",
  fields: (t) => ({
    name: t.string({ description: 'Unique within the app; absent keeps the current one.' }),
    settingsValues: t.field({ type: 'JSON', description: 'Replaces the settings whole; absent fields get their defaults.' }),
  }),
});

builder.queryFields((t) => ({
  evaluators: t.field({
    type: [EvaluatorRef],
    description: 'Every built-in evaluator with its settings template (REST `GET /evaluators`).',
    resolve: () => [...evaluators.listEvaluators()],
  }),
  evaluator: t.field({
    type: EvaluatorRef,
    nullable: true,
    description: 'The built-in evaluator with this key; null when there is none.',
    args: { key: t.arg.string({ required: true, description: 'Its key, such as `auto_exact_match`.' }) },
    resolve: (_root, args) => evaluators.getEvaluator(args.key) ?? null,
  }),
  evaluatorConfig: t.prismaField({
    type: 'EvaluatorConfig',
    nullable: true,
    description: 'The evaluator config with this global id; null, with a NOT_FOUND error, when the project has none.',
    args: { id: t.arg.globalID({ for: EvaluatorConfig, required: true, description: 'Global id of the config.' }) },
    resolve: (query, _root, args, ctx) => evaluators.getEvaluatorConfig(ctx, args.id.id, query),
  }),
  evaluatorConfigs: t.prismaConnection(
    {
      type: 'EvaluatorConfig',
      cursor: 'id',
      description: "The project's evaluator configs in creation order, of one app when appId is given.",
      args: { appId: t.arg.globalID({ for: App, description: 'Only the configs of this app.' }) },
      resolve: (query, _root, args, ctx) => evaluators.listEvaluatorConfigs(ctx, { app_id: args.appId?.id }, query),
    },
    EvaluatorConfigConnection,
  ),
}));

builder.mutationFields((t) => ({
  createEvaluatorConfig: t.prismaField({
    type: 'EvaluatorConfig',
    description: "Saves a config after checking its settings against the evaluator's template; a name the app already has is a CONFLICT error.",
    args: { input: t.arg({ type: CreateEvaluatorConfigInput, required: true, description: 'Its app, name, evaluator and settings.' }) },
    resolve: async (query, _root, args, ctx) => {
      const config = await evaluators.createEvaluatorConfig(ctx, parseInput(createEvaluatorConfigInput, restFields(args.input), 'body'));
      return evaluators.getEvaluatorConfig(ctx, config.id, query);
    },
  }),
  updateEvaluatorConfig: t.prismaField({
    type: 'EvaluatorConfig',
    description: 'Renames a config or replaces its settings, checked as on creation.',
    args: {
      id: t.arg.globalID({ for: EvaluatorConfig, required: true, description: 'Global id of the config.' }),
      input: t.arg({ type: UpdateEvaluatorConfigInput, required: true, description: 'What changes.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      await evaluators.updateEvaluatorConfig(ctx, args.id.id, restFields(args.input));
      return evaluators.getEvaluatorConfig(ctx, args.id.id, query);
    },
  }),
  deleteEvaluatorConfig: t.id({
    description: 'Deletes the config, unless an evaluation uses it (a CONFLICT error); answers its global id.',
    args: { id: t.arg.globalID({ for: EvaluatorConfig, required: true, description: 'Global id of the config.' }) },
    resolve: async (_root, args, ctx) => {
      await evaluators.deleteEvaluatorConfig(ctx, args.id.id);
      return globalId('EvaluatorConfig', args.id.id);
    },
  }),
}));
