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
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { addRowsInput, changeColumnsInput, createTestsetInput, deleteRowsInput, editRowsInput, rowsFromSpansInput, updateTestsetInput } from './inputs.js';
import { type RowsFromSpans, rowsFromSpans } from './from-spans.js';
import * as testsets from './operations.js';
import * as rowReads from './row-reads.js';

const TestsetRow = builder.prismaNode('TestsetRow', {
  description: 'One test case of a test set.',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, testset: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    position: t.exposeInt('position', { description: 'Place of the case in the test set, from 0.' }),
    data: t.expose('data', { type: 'JSON', description: 'Column name → value.' }),
    sourceTraceId: t.exposeString('sourceTraceId', {
      nullable: true,
      description: 'The production trace the case was made from; null when typed in or uploaded.',
    }),
    sourceSpanId: t.exposeString('sourceSpanId', {
      nullable: true,
      description: 'The production span the case was made from; null when typed in or uploaded.',
    }),
    revisionFrom: t.exposeInt('revisionFrom', { description: 'The first revision holding this version of the case.' }),
    revisionTo: t.exposeInt('revisionTo', { nullable: true, description: 'The revision that replaced or deleted this version; null while it is current.' }),
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
type RowWindowKey = { testsetId: string; window: rowReads.RowWindow };

/** Reads the windows asked for, grouped so each distinct window is one statement for all its sets. */
async function loadRowWindows(ctx: RequestContext, keys: readonly RowWindowKey[]): Promise<RowRecord[][]> {
  const groups = new Map<string, { window: rowReads.RowWindow; testsetIds: string[] }>();
  for (const { testsetId, window } of keys) {
    const windowKey = JSON.stringify(window);
    if (!groups.has(windowKey)) groups.set(windowKey, { window, testsetIds: [] });
    groups.get(windowKey)!.testsetIds.push(testsetId);
  }
  const rowsByWindow = new Map<string, Map<string, RowRecord[]>>();
  for (const [windowKey, { window, testsetIds }] of groups) {
    rowsByWindow.set(windowKey, await rowReads.readRowWindows(ctx, testsetIds, window));
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

type RowsArgs = { after?: string | null; before?: string | null; first?: number | null; last?: number | null };

/** A page of a test set's rows (of one revision, or the current ones), read with the other pages asked in the request. */
function rowPage(ctx: RequestContext, testsetId: string, args: RowsArgs, revision?: number) {
  return resolveCursorConnection<Promise<RowRecord[]>>({ args, toCursor: rowCursor }, ({ after, before, limit, inverted }) =>
    rowWindowLoader(ctx).load({
      testsetId,
      window: {
        afterPosition: cursorPosition(after, 'after'),
        beforePosition: cursorPosition(before, 'before'),
        limit,
        fromEnd: inverted,
        ...(revision === undefined ? {} : { revision }),
      },
    }),
  );
}

type TestsetChangeName = testsets.TestsetChange;

const TestsetChange = builder.enumType('TestsetChange', {
  description: 'What made a test set revision.',
  values: upperCaseValues(testsets.testsetChanges, {
    created: 'The test set was created from rows.',
    uploaded: 'The test set was created from a CSV or JSON file.',
    replaced: 'Its name and rows were replaced whole.',
    rows_added: 'Rows were appended.',
    rows_edited: 'Rows were edited.',
    rows_deleted: 'Rows were deleted.',
    rows_from_spans: 'Rows were made from production traces or spans.',
    columns_changed: 'Columns were renamed or removed in every row.',
    rows_archived: 'A case was archived: taken out of the set, and kept to be restored (docs/resources.md#case-ids).',
    described: 'Its description or metadata changed.',
  }),
});

export const TestsetRevision = builder.prismaNode('TestsetRevision', {
  description: 'A test set as it was at one revision; every change makes one, and old ones stay readable (docs/resources.md#test-set-revisions).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, testset: { projectId: ctx.projectId } }),
  fields: (t) => ({
    number: t.exposeInt('number', { description: '1 for the set as created, one more for each change.' }),
    change: t.field({ type: TestsetChange, description: 'What made it.', resolve: (revision) => revision.change as TestsetChangeName }),
    name: t.exposeString('name', { description: "The test set's name at this revision." }),
    columns: t.stringList({ description: 'Column names at this revision.', resolve: (revision) => asArray<string>(revision.columns) }),
    rowCount: t.exposeInt('rowCount', { description: 'How many test cases it held.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the change was made.' }),
    rows: t.connection(
      {
        type: TestsetRow,
        description: 'The test cases of this revision in position order.',
        resolve: (revision, args, ctx) => rowPage(ctx, revision.testsetId, args, revision.number),
      },
      TestsetRowConnection,
    ),
  }),
});

const TestsetRevisionConnection = builder.connectionObject(
  { type: TestsetRevision, name: 'TestsetRevisionConnection', description: "A test set's revisions, a page at a time." },
  { description: 'A revision and its cursor.' },
);

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
        description: 'The current test cases in position order; a cursor is a position, valid in any test set.',
        resolve: (testset, args, ctx) => rowPage(ctx, testset.id, args),
      },
      TestsetRowConnection,
    ),
    currentRevision: t.exposeInt('revision', { description: 'Number of its newest revision.' }),
    revisions: t.relatedConnection(
      'revisions',
      { cursor: 'id', description: 'Its revisions, oldest first.', query: { orderBy: { number: 'asc' } } },
      TestsetRevisionConnection,
    ),
    revision: t.prismaField({
      type: TestsetRevision,
      nullable: true,
      description: 'Revision `number`; null, with a NOT_FOUND error, when it has none such.',
      args: { number: t.arg.int({ required: true, description: 'The revision number, from 1.' }) },
      resolve: (query, testset, args, ctx) => rowReads.getRevision(ctx, testset.id, args.number, query),
    }),
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

const EditTestsetRowInput = builder.inputType('EditTestsetRowInput', {
  description: 'The new data of one current row.',
  fields: (t) => ({
    rowId: t.globalID({ for: TestsetRow, required: true, description: 'Global id of the current version of the row.' }),
    data: t.field({ type: 'JSON', required: true, description: 'Column name → value, replacing the old data whole.' }),
  }),
});

const SpanSelectionInput = builder.inputType('SpanSelectionInput', {
  description: 'One span, named by its trace and its own id.',
  fields: (t) => ({
    traceId: t.string({ required: true, description: 'The trace id.' }),
    spanId: t.string({ required: true, description: 'The span id.' }),
  }),
});

const TestsetRowsFromSpansInput = builder.inputType('TestsetRowsFromSpansInput', {
  description: 'Production spans to make test cases of (REST `POST /testsets/{id}/rows/from-spans`): exactly one of traceIds, spans, filter.',
  fields: (t) => ({
    traceIds: t.stringList({ description: 'Traces whose root span becomes a row each, at most 1000.' }),
    spans: t.field({ type: [SpanSelectionInput], description: 'Spans that become a row each, at most 1000.' }),
    filter: t.field({
      type: 'JSON',
      description: "A trace search filter under REST's names (`GET /observability/traces`' query fields); its newest matches, up to `limit`.",
    }),
    limit: t.int({ description: "At most this many of the filter's matches, 1 to 1000; 100 when absent." }),
    mapping: t.field({
      type: 'JSON',
      required: true,
      description: 'Column → JSONPath into the span: `$.input…`, `$.output…`, `$.metadata…` or `$.attributes…`.',
    }),
    preview: t.boolean({ description: 'Answer the rows without writing them; false when absent.' }),
  }),
});

const MappedRow = builder.objectRef<RowsFromSpans['rows'][number]>('TestsetMappedRow').implement({
  description: 'A test case made from a production span: written (with its id) or previewed.',
  fields: (t) => ({
    rowId: t.id({
      nullable: true,
      description: 'Global id of the written row; null in a preview.',
      resolve: (row) => (row.id === null ? null : globalId('TestsetRow', row.id)),
    }),
    position: t.exposeInt('position', { nullable: true, description: 'Its place in the test set; null in a preview.' }),
    data: t.field({ type: 'JSON', description: 'Column name → value, as the mapping read them.', resolve: (row) => row.data }),
    sourceTraceId: t.exposeString('sourceTraceId', { description: 'The trace it was made from.' }),
    sourceSpanId: t.exposeString('sourceSpanId', { description: 'The span it was made from.' }),
  }),
});

const RowsFromSpansPayload = builder.objectRef<RowsFromSpans & { testsetId: string }>('TestsetRowsFromSpansPayload').implement({
  description: 'What `addTestsetRowsFromSpans` made or would make.',
  fields: (t) => ({
    matched: t.exposeInt('matched', { description: 'Spans chosen: the ids given, or every trace the filter matches.' }),
    capped: t.exposeBoolean('capped', { description: 'Whether the filter matched more traces than `limit` took.' }),
    revision: t.prismaField({
      type: TestsetRevision,
      nullable: true,
      description: 'The revision the rows were written as; null for a preview.',
      resolve: (query, made, _args, ctx) => (made.revision === null ? null : rowReads.getRevision(ctx, made.testsetId, made.revision, query)),
    }),
    rows: t.field({ type: [MappedRow], description: 'The rows, in the order the spans were chosen.', resolve: (made) => made.rows }),
  }),
});

/** A change's answer: the revision it made. */
function madeRevision(ctx: RequestContext, testset: { id: string; revision: number }, query: object) {
  return rowReads.getRevision(ctx, testset.id, testset.revision, query);
}

builder.mutationFields((t) => ({
  addTestsetRows: t.prismaField({
    type: TestsetRevision,
    description: 'Appends rows to a test set as a new revision (REST `POST /testsets/{id}/rows`); answers that revision.',
    args: {
      id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
      rows: t.arg({ type: ['JSON'], required: true, description: 'The rows, at least one: objects of column → value.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { rows } = parseInput(addRowsInput, { rows: args.rows }, 'body');
      const made = await testsets.addRows(
        ctx,
        args.id.id,
        rows.map((data) => ({ data })),
      );
      return madeRevision(ctx, made.testset, query);
    },
  }),
  editTestsetRows: t.prismaField({
    type: TestsetRevision,
    description: 'Replaces the data of rows as a new revision (REST `PATCH /testsets/{id}/rows`); answers that revision.',
    args: {
      id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
      rows: t.arg({ type: [EditTestsetRowInput], required: true, description: 'The rows and their new data, at least one.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { rows } = parseInput(editRowsInput, { rows: args.rows.map((row) => restFields(row)) }, 'body');
      return madeRevision(ctx, await testsets.editRows(ctx, args.id.id, rows), query);
    },
  }),
  deleteTestsetRows: t.prismaField({
    type: TestsetRevision,
    description: 'Deletes rows as a new revision, which keeps at least one (REST `DELETE /testsets/{id}/rows`); answers that revision.',
    args: {
      id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
      rowIds: t.arg.globalIDList({ for: TestsetRow, required: true, description: 'Global ids of current rows.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { row_ids } = parseInput(deleteRowsInput, { row_ids: databaseIds(args.rowIds) }, 'body');
      return madeRevision(ctx, await testsets.deleteRows(ctx, args.id.id, row_ids), query);
    },
  }),
  changeTestsetColumns: t.prismaField({
    type: TestsetRevision,
    description: 'Renames or removes columns in every row as a new revision (REST `PATCH /testsets/{id}/columns`); answers that revision.',
    args: {
      id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
      rename: t.arg({ type: 'JSON', description: 'Old column name → new one.' }),
      remove: t.arg.stringList({ description: 'Columns to remove from every row.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(changeColumnsInput, restFields({ rename: args.rename ?? undefined, remove: args.remove ?? undefined }), 'body');
      return madeRevision(ctx, await testsets.changeColumns(ctx, args.id.id, input), query);
    },
  }),
  addTestsetRowsFromSpans: t.field({
    type: RowsFromSpansPayload,
    description: 'Test cases from production traces or spans, mapped by JSONPath; a preview writes nothing (REST `POST /testsets/{id}/rows/from-spans`).',
    args: {
      id: t.arg.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
      input: t.arg({ type: TestsetRowsFromSpansInput, required: true, description: 'The spans, the mapping and whether to preview.' }),
    },
    resolve: async (_root, args, ctx) => {
      const input = parseInput(rowsFromSpansInput, restFields(args.input, { nested: ['spans'] }), 'body');
      return { ...(await rowsFromSpans(ctx, args.id.id, input)), testsetId: args.id.id };
    },
  }),
}));
