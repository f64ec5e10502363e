// Writing scores through the operations (docs/scores.md): each data type, client ids that update
// (idempotent retries), a target that never changes, configs enforced, faults named per field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { requestContext, type Principal, type RequestContext } from '../shared/context.js';
import { ConflictError, ForbiddenError, ValidationError } from '../shared/errors.js';
import * as scores from './operations.js';
import * as scoreConfigs from './score-configs.js';
import * as scoreReads from './score-reads.js';

let server: TestServer;
let ctx: RequestContext;

beforeAll(async () => {
  server = await startServer();
  const projectId = (await server.assay.db.project.findFirstOrThrow()).id;
  ctx = requestContext(server.assay.services, projectId);
});

afterAll(async () => {
  await server.close();
});

/** The 422's faults as `loc: msg` lines. */
async function faults(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`);
}

describe('upsertScores', () => {
  it('stores a score of each data type, reading the type from the value when not given', async () => {
    const rows = await scores.upsertScores(ctx, [
      { trace_id: 't-types', name: 'accuracy', value: 0.75 },
      { trace_id: 't-types', name: 'thumbs', value: true },
      { trace_id: 't-types', name: 'tone', value: 'friendly' },
      { trace_id: 't-types', name: 'note', data_type: 'TEXT', value: 'too long' },
      { trace_id: 't-types', name: 'correct', data_type: 'BOOLEAN', value: 0 },
      { trace_id: 't-types', span_id: 's1', name: 'accuracy', value: 1, comment: 'exact', metadata: { grader: 'ada' } },
    ]);
    expect(rows.map((row) => [row.target, row.spanId, row.name, row.dataType, row.value, row.stringValue])).toEqual([
      ['trace', null, 'accuracy', 'NUMERIC', 0.75, null],
      ['trace', null, 'thumbs', 'BOOLEAN', 1, 'True'],
      ['trace', null, 'tone', 'CATEGORICAL', null, 'friendly'],
      ['trace', null, 'note', 'TEXT', null, 'too long'],
      ['trace', null, 'correct', 'BOOLEAN', 0, 'False'],
      ['span', 's1', 'accuracy', 'NUMERIC', 1, null],
    ]);
    expect(rows[5]).toMatchObject({ comment: 'exact', metadata: { grader: 'ada' }, source: 'api', authorType: 'system' });
    expect(rows.every((row) => row.id.length > 0 && row.createdAt instanceof Date)).toBe(true);
  });

  it('updates a score written again with the same id, keeping its creation time', async () => {
    const [first] = await scores.upsertScores(ctx, [{ id: 'retry-1', session_id: 'sess-1', name: 'rating', value: 3 }]);
    const [again] = await scores.upsertScores(ctx, [{ id: 'retry-1', session_id: 'sess-1', name: 'rating', value: 4, comment: 'changed my mind' }]);
    expect(again).toMatchObject({ id: 'retry-1', target: 'session', value: 4, comment: 'changed my mind', createdAt: first.createdAt });
    expect(again.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
    expect(await scoreReads.countScores(ctx, { session_id: 'sess-1' })).toBe(1);
  });

  it('takes the last of one id given twice in a request', async () => {
    const rows = await scores.upsertScores(ctx, [
      { id: 'twice', trace_id: 't-twice', name: 'n', value: 1 },
      { id: 'twice', trace_id: 't-twice', name: 'n', value: 2 },
    ]);
    expect(rows.map((row) => row.value)).toEqual([2, 2]);
    expect(await scoreReads.countScores(ctx, { trace_id: 't-twice' })).toBe(1);
  });

  it('refuses an id written before for another target, and changes nothing', async () => {
    await scores.upsertScores(ctx, [{ id: 'fixed-target', trace_id: 't-a', name: 'n', value: 1 }]);
    await expect(scores.upsertScores(ctx, [{ id: 'fixed-target', trace_id: 't-b', name: 'n', value: 2 }])).rejects.toThrow(ConflictError);
    await expect(scores.upsertScores(ctx, [{ id: 'fixed-target', session_id: 't-a', name: 'n', value: 2 }])).rejects.toThrow(ConflictError);
    expect(await scoreReads.getScore(ctx, 'fixed-target')).toMatchObject({ traceId: 't-a', value: 1 });
  });

  it('keeps the same id apart in two projects', async () => {
    const other = await server.assay.db.project.create({ data: { name: 'scores-other' } });
    const theirs = requestContext(server.assay.services, other.id);
    await scores.upsertScores(ctx, [{ id: 'shared-id', trace_id: 'mine', name: 'n', value: 1 }]);
    await scores.upsertScores(theirs, [{ id: 'shared-id', session_id: 'theirs', name: 'n', value: 2 }]);
    expect(await scoreReads.getScore(ctx, 'shared-id')).toMatchObject({ traceId: 'mine', value: 1 });
    expect(await scoreReads.getScore(theirs, 'shared-id')).toMatchObject({ sessionId: 'theirs', value: 2 });
  });

  it('names every faulty field of every input in one 422, and writes none of them', async () => {
    const lines = await faults(
      scores.upsertScores(ctx, [
        { id: 'ok-but-not-written', trace_id: 't-bad', name: 'n', value: 1 },
        { name: 'no-target', value: 1 },
        { target: 'span', trace_id: 't', name: 'n', value: 1 },
        { trace_id: 't', session_id: 's', name: 'n', value: 1 },
        { trace_id: 't', value: 1 },
        { trace_id: 't', name: 'n', data_type: 'NUMERIC', value: 'high' },
        { trace_id: 't', name: 'n', data_type: 'BOOLEAN', value: 2 },
        { trace_id: 't', name: 'n', data_type: 'TEXT', value: 3 },
        { trace_id: 't', name: 'n', data_type: 'CATEGORICAL' },
        { trace_id: 't', name: 'n' },
      ]),
    );
    expect(lines).toEqual([
      'body.1.target: Give trace_id, span_id (with trace_id), session_id or scenario_id: what the score judges',
      'body.2.span_id: Field required for target span',
      'body.3.session_id: Not allowed for target trace',
      'body.4.name: Field required',
      'body.5.value: A NUMERIC score needs a finite number',
      'body.6.value: A BOOLEAN score needs true/false or 1/0',
      'body.7.value: A TEXT score has no number: give the text',
      "body.8.string_value: A CATEGORICAL score needs the category's label (string_value, or value as a string)",
      'body.9.value: Field required: a number, a boolean, a label or a text',
    ]);
    await expect(scoreReads.getScore(ctx, 'ok-but-not-written')).rejects.toThrow('not found');
  });
});

describe('upsertScoresPartly', () => {
  it('writes the inputs that pass and reports each refusal at its place', async () => {
    await scores.upsertScores(ctx, [{ id: 'partly-taken', trace_id: 't-p', name: 'n', value: 1 }]);
    const outcomes = await scores.upsertScoresPartly(ctx, [
      { id: 'partly-ok', trace_id: 't-p', name: 'n', value: 2 },
      { id: 'partly-bad', trace_id: 't-p', name: 'n', data_type: 'NUMERIC', value: 'x' },
      { id: 'partly-taken', session_id: 's', name: 'n', value: 3 },
      { id: 'partly-ok-2', span_id: 's1', trace_id: 't-p', name: 'n', value: true },
    ]);
    expect(outcomes.map((outcome) => outcome.row?.id ?? outcome.error?.constructor.name)).toEqual([
      'partly-ok',
      'ValidationError',
      'ConflictError',
      'partly-ok-2',
    ]);
    expect((outcomes[1].error as ValidationError).issues[0].loc).toEqual(['body', 1, 'value']);
    expect(await scoreReads.countScores(ctx, { trace_id: 't-p' })).toBe(3);
    expect(await scoreReads.getScore(ctx, 'partly-taken')).toMatchObject({ traceId: 't-p', value: 1 });
    expect(await scoreReads.countScores(ctx, { trace_ids: ['t-p', 'no-such-trace'] })).toBe(3);
    const page = await scoreReads.listScores(ctx, { ids: ['partly-ok', 'partly-ok-2', 'partly-taken'] }, { first: 1, skip: 1 });
    expect(page.scores).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
  });
});

describe('score configs', () => {
  it('holds scores to their config: type, range, categories, name; archived configs take none', async () => {
    const range = await scoreConfigs.createScoreConfig(ctx, { name: 'quality', data_type: 'NUMERIC', min_value: 0, max_value: 5 });
    const tone = await scoreConfigs.createScoreConfig(ctx, {
      name: 'tone',
      data_type: 'CATEGORICAL',
      categories: [
        { label: 'rude', value: 0 },
        { label: 'neutral', value: 1 },
        { label: 'kind', value: 2 },
      ],
    });
    const flag = await scoreConfigs.createScoreConfig(ctx, { name: 'flag', data_type: 'BOOLEAN' });
    const rows = await scores.upsertScores(ctx, [
      { trace_id: 'cfg', config_id: range.id, value: 4.5 },
      { trace_id: 'cfg', config_id: tone.id, value: 'kind' },
      { trace_id: 'cfg', config_id: tone.id, value: 1 },
      { trace_id: 'cfg', config_id: flag.id, string_value: 'true' },
    ]);
    expect(rows.map((row) => [row.name, row.dataType, row.value, row.stringValue, row.configId])).toEqual([
      ['quality', 'NUMERIC', 4.5, null, range.id],
      ['tone', 'CATEGORICAL', 2, 'kind', tone.id],
      ['tone', 'CATEGORICAL', 1, 'neutral', tone.id],
      ['flag', 'BOOLEAN', 1, 'True', flag.id],
    ]);
    const lines = await faults(
      scores.upsertScores(ctx, [
        { trace_id: 'cfg', config_id: range.id, value: 6 },
        { trace_id: 'cfg', config_id: range.id, value: -1 },
        { trace_id: 'cfg', config_id: range.id, name: 'other', value: 1 },
        { trace_id: 'cfg', config_id: range.id, data_type: 'TEXT', value: 'x' },
        { trace_id: 'cfg', config_id: tone.id, value: 'angry' },
        { trace_id: 'cfg', config_id: tone.id, value: 7 },
        { trace_id: 'cfg', config_id: 'no-such-config', value: 1 },
      ]),
    );
    expect(lines).toEqual([
      'body.0.value: Input should be less than or equal to 5 (score config quality)',
      'body.1.value: Input should be greater than or equal to 0 (score config quality)',
      `body.2.name: The score config ${range.id} is named quality`,
      'body.3.data_type: The score config quality is NUMERIC',
      'body.3.value: A NUMERIC score needs a finite number',
      'body.4.value: Not a category of score config tone: rude (0), neutral (1), kind (2)',
      'body.5.value: Not a category of score config tone: rude (0), neutral (1), kind (2)',
      'body.6.config_id: Score config no-such-config not found',
      'body.6.name: Field required',
    ]);
    await scoreConfigs.updateScoreConfig(ctx, range.id, { is_archived: true });
    expect(await faults(scores.upsertScores(ctx, [{ trace_id: 'cfg', config_id: range.id, value: 1 }]))).toEqual([
      'body.0.config_id: Score config quality is archived: it takes no new scores',
    ]);
    expect((await scoreConfigs.listScoreConfigs(ctx, { is_archived: true })).map((config) => config.name)).toEqual(['quality']);
  });

  it('refuses a config whose range or categories do not fit its data type, naming the field', async () => {
    expect(await faults(scoreConfigs.createScoreConfig(ctx, { name: 'r', data_type: 'NUMERIC', min_value: 2, max_value: 1 }))).toEqual([
      'body.max_value: Input should be greater than or equal to min_value (2)',
    ]);
    expect(
      await faults(
        scoreConfigs.createScoreConfig(ctx, {
          name: 'c',
          data_type: 'CATEGORICAL',
          categories: [
            { label: 'a', value: 1 },
            { label: 'a', value: 1 },
          ],
        }),
      ),
    ).toEqual(['body.categories: Labels must be unique', 'body.categories: Values must be unique']);
    expect(await faults(scoreConfigs.createScoreConfig(ctx, { name: 'c', data_type: 'CATEGORICAL' }))).toEqual([
      'body.categories: A CATEGORICAL config needs at least one category',
    ]);
    expect(await faults(scoreConfigs.createScoreConfig(ctx, { name: 'b', data_type: 'BOOLEAN', min_value: 0 }))).toEqual([
      'body.min_value: Only a NUMERIC config has a range',
    ]);
  });
});

describe('feedback keys', () => {
  const feedbackPrincipal = (id: string): Principal => ({
    projectId: ctx.projectId,
    scopes: ['feedback'],
    actor: { type: 'api_key', id, label: `key ${id}` },
  });

  it('write source "api" only, update their own scores, and never another author’s', async () => {
    const browser = requestContext(server.assay.services, ctx.projectId, feedbackPrincipal('k1'));
    const [mine] = await scores.upsertScores(browser, [{ id: 'fb-1', trace_id: 't-fb', name: 'thumbs', value: true }]);
    expect(mine).toMatchObject({ authorType: 'api_key', authorId: 'k1', source: 'api' });
    await scores.upsertScores(browser, [{ id: 'fb-1', trace_id: 't-fb', name: 'thumbs', value: false }]);
    expect((await scoreReads.getScore(ctx, 'fb-1')).value).toBe(0);
    const another = requestContext(server.assay.services, ctx.projectId, feedbackPrincipal('k2'));
    await expect(scores.upsertScores(another, [{ id: 'fb-1', trace_id: 't-fb', name: 'thumbs', value: true }])).rejects.toThrow(ForbiddenError);
    await scores.upsertScores(ctx, [{ id: 'by-service', trace_id: 't-fb', name: 'thumbs', value: true }]);
    await expect(scores.upsertScores(browser, [{ id: 'by-service', trace_id: 't-fb', name: 'thumbs', value: false }])).rejects.toThrow(ForbiddenError);
    expect(await faults(scores.upsertScores(browser, [{ trace_id: 't-fb', name: 'x', value: 1, source: 'annotation' }]))).toEqual([
      'body.0.source: A feedback key writes scores of source "api" only',
    ]);
    expect((await scoreReads.getScore(ctx, 'fb-1')).value).toBe(0);
  });
});
