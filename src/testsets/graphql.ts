// GraphQL types, queries and mutations of test sets. Inputs carry the REST field names and are
// validated by the same schemas (inputs.ts); resolvers call the same operations.
import { resolveCursorConnection } from '@pothos/plugin-relay';
import DataLoader from 'dataloader';
import { builder } from '../shared/graphql/builder.js';
import { perRequest, type RequestContext } from '../shared/context.js';
import { ValidationError } from '../shared/errors.js';
import { asArray } from '../shared/json.js';
import { App } from '../apps/graphql.js';
import { databaseIds, globalId } from '../shared/graphql/ids.js';
import { restFields } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { createTestsetInput, updateTestsetInput } from './inputs.js';
import * as testsets from './operations.js';

const TestsetRow = builder.prismaNode('TestsetRow', {
  description: 'One test case of a test set.',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, testset: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    position: t.exposeInt('position', { description: 'Place of the case in the test set, from 0.' }),
    data: t.expose('data', { type: 'JSON', description: 'Column name → value.' }),
  }),
});

const TestsetRowConnection = builder.connectionObject(
  { type: TestsetRow, name: 'TestsetRowConnection', description: "A test set's rows, a page at a time." },
  { description: 'A row and its cursor.' },
);

// A row's cursor is its position, so one `after` pages every test set of a list alike.
const cursorPrefix = 'position:';

function rowCursor(row: { position: number }): string {
  return Buffer.from(`${cursorPrefix}${row.position}`).toString('base64url');
}

function cursorPosition(cursor: string | undefined, arg: 'after' | 'before'): number | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString();
  const position = text.startsWith(cursorPrefix) ? text.slice(cursorPrefix.length) : '';
  if (!/^\d+$/.test(position)) throw ValidationError.at(['query', arg], 'Invalid cursor', 'value_error');
  return Number(position);
}

type RowRecord = testsets.TestsetRowRecord;
type RowWindowKey = { testsetId: string; window: testsets.RowWindow };

/** Reads the windows asked for, grouped so each distinct window is one statement for all its sets. */
async function loadRowWindows(ctx: RequestContext, keys: readonly RowWindowKey[]): Promise<RowRecord[][]> {
  const groups = new Map<string, { window: testsets.RowWindow; testsetIds: string[] }>();
  for (const { testsetId, window } of keys) {
    const windowKey = JSON.stringify(window);
    if (!groups.has(windowKey)) groups.set(windowKey, { window, testsetIds: [] });
    groups.get(windowKey)!.testsetIds.push(testsetId);
  }
  const rowsByWindow = new Map<string, Map<string, RowRecord[]>>();
  for (const [windowKey, { window, testsetIds }] of groups) {
    rowsByWindow.set(windowKey, await testsets.readRowWindows(ctx, testsetIds, window));
  }
  return keys.map(({ testsetId, window }) => rowsByWindow.get(JSON.stringify(window))?.get(testsetId) ?? []);
}

const rowWindowLoaderKey = Symbol('testset row windows');

/**
 * Per request, the row pages asked of many test sets (`testsets { rows(first: n) }`) are read
 * together instead of one statement per test set.
 */
function rowWindowLoader(ctx: RequestContext) {
  return perRequest(
    ctx,
    rowWindowLoaderKey,
    () => new DataLoader<RowWindowKey, RowRecord[], string>((keys) => loadRowWindows(ctx, keys), { cacheKeyFn: (key) => JSON.stringify(key) }),
  );
}

export const Testset = builder.prismaNode('Testset', {
  description: 'Named test cases, each a row of column → value, that evaluations run variants over (REST `/testsets`).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    name: t.exposeString('name', { description: '1 to 255 characters.' }),
    appId: t.id({
      nullable: true,
      description: 'Global id of the app it is filed under; null when none (or when that app was deleted).',
      resolve: (testset) => globalId('App', testset.appId),
    }),
    app: t.relation('app', { nullable: true, description: 'The app it is filed under; null when none.' }),
    columns: t.stringList({
      description: 'Column names in the order they first appear in the rows.',
      select: { columns: true },
      resolve: (testset) => asArray<string>(testset.columns),
    }),
    rowCount: t.exposeInt('rowCount', { description: 'How many test cases it holds (at least one).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When its name or rows last changed.' }),
    rows: t.connection(
      {
        type: TestsetRow,
        description: 'The test cases in position order; a cursor is a position, valid in any test set.',
        resolve: (testset, args, ctx) =>
          resolveCursorConnection<Promise<RowRecord[]>>({ args, toCursor: rowCursor }, ({ after, before, limit, inverted }) =>
            rowWindowLoader(ctx).load({
              testsetId: testset.id,
              window: {
                afterPosition: cursorPosition(after, 'after'),
                beforePosition: cursorPosition(before, 'before'),
                limit,
                fromEnd: inverted,
              },
            }),
          ),
      },
      TestsetRowConnection,
    ),
  }),
});

const TestsetConnection = builder.connectionObject(
  { type: Testset, name: 'TestsetConnection', description: 'Test sets, a page at a time.' },
  { description: 'A test set and its cursor.' },
);

const UpdateTestsetInput = builder.inputType('UpdateTestsetInput', {
  description: "A test set's new name and rows, replacing the old ones whole (REST `PUT /testsets/{id}`).",
  fields: (t) => ({
    name: t.string({ required: true, description: '1 to 255 characters.' }),
    csvdata: t.field({ type: ['JSON'], required: true, description: 'The rows, at least one: objects of column → value.' }),
  }),
});

const CreateTestsetInput = builder.inputType('CreateTestsetInput', {
  description: 'A new test set (REST `POST /testsets`).',
  fields: (t) => ({
    name: t.string({ required: true, description: '1 to 255 characters.' }),
    csvdata: t.field({ type: ['JSON'], required: true, description: 'The rows, at least one: objects of column → value.' }),
    appId: t.globalID({ for: App, description: 'Global id of an app to file it under; absent, it belongs to none.' }),
  }),
});

builder.queryFields((t) => ({
  testset: t.prismaField({
    type: 'Testset',
    nullable: true,
    description: 'The test set with this global id; null, with a NOT_FOUND error, when the project has none.',
    args: { id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }) },
    resolve: (query, _root, args, ctx) => testsets.getTestset(ctx, args.id.id, query),
  }),
  testsets: t.prismaConnection(
    {
      type: 'Testset',
      cursor: 'id',
      description: "The project's test sets in creation order (REST `GET /testsets`).",
      args: { appId: t.arg.globalID({ for: App, description: 'Only the test sets filed under this app.' }) },
      resolve: (query, _root, args, ctx) => testsets.listTestsets(ctx, { app_id: args.appId?.id ?? null }, query),
    },
    TestsetConnection,
  ),
}));

builder.mutationFields((t) => ({
  createTestset: t.prismaField({
    type: 'Testset',
    description: 'Creates a test set from rows; a file is uploaded through REST `POST /testsets/upload`.',
    args: { input: t.arg({ type: CreateTestsetInput, required: true, description: 'Its name, rows and app.' }) },
    resolve: async (query, _root, args, ctx) => {
      const testset = await testsets.createTestset(ctx, parseInput(createTestsetInput, restFields(args.input), 'body'));
      return testsets.getTestset(ctx, testset.id, query);
    },
  }),
  updateTestset: t.prismaField({
    type: 'Testset',
    description: 'Replaces the name and rows of a test set (REST `PUT /testsets/{id}`).',
    args: {
      id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
      input: t.arg({ type: UpdateTestsetInput, required: true, description: 'The new name and rows.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      await testsets.updateTestset(ctx, args.id.id, parseInput(updateTestsetInput, restFields(args.input), 'body'));
      return testsets.getTestset(ctx, args.id.id, query);
    },
  }),
  deleteTestset: t.id({
    description: 'Deletes the test set with its rows; answers its global id.',
    args: { id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }) },
    resolve: async (_root, args, ctx) => {
      await testsets.deleteTestset(ctx, args.id.id);
      return globalId('Testset', args.id.id);
    },
  }),
  deleteTestsets: t.idList({
    description: 'Deletes all the given test sets, or none if one of them is unknown; answers their global ids.',
    args: { ids: t.arg.globalIDList({ for: Testset, required: true, description: 'Global ids of the test sets.' }) },
    resolve: async (_root, args, ctx) => {
      await testsets.deleteTestsets(ctx, databaseIds(args.ids));
      return args.ids.map(({ id }) => globalId('Testset', id));
    },
  }),
}));
