// Test set revisions (docs/resources.md#test-set-revisions) over REST and GraphQL: every kind of
// change (create, upload, replace, rows added, edited, deleted) makes one; each old revision reads
// back as it was; row changes name current rows of the set (404 otherwise) and keep one row (422).
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createTestset } from '../../test/helpers/evaluations.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();

const revisions = async (id: string) => (await server.request('GET', `/testsets/${id}/revisions`)).body;
const revision = async (id: string, number: number) => (await server.request('GET', `/testsets/${id}/revisions/${number}`)).body;
const data = (body: any) => body.rows.map((row: any) => row.data);

describe('REST revisions', () => {
  it('makes one per change and reads every old one back as it was', async () => {
    const { id } = await createTestset(server, [{ q: 'a' }, { q: 'b' }, { q: 'c' }], 'revised');
    const first = await revision(id, 1);
    expect(first).toEqual({
      testset_id: id,
      number: 1,
      change: 'created',
      name: 'revised',
      columns: ['q'],
      row_count: 3,
      created_at: expect.any(String),
      rows: [0, 1, 2].map((position) => ({ id: expect.any(String), position, data: { q: 'abc'[position] }, source_trace_id: null, source_span_id: null })),
    });
    const [a, b, c] = first.rows.map((row: any) => row.id);

    const added = await server.request('POST', `/testsets/${id}/rows`, { rows: [{ q: 'd', answer: 'D' }] });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ number: 2, change: 'rows_added', row_count: 4, columns: ['q', 'answer'] });

    const edited = await server.request('PATCH', `/testsets/${id}/rows`, { rows: [{ row_id: b, data: { q: 'B' } }] });
    expect(edited.body).toMatchObject({ number: 3, change: 'rows_edited', row_count: 4 });
    // Copy-on-write: the edit stored one new version; nothing else was copied.
    expect(await server.assay.db.testsetRow.count({ where: { testsetId: id } })).toBe(5);

    const deleted = await server.request('DELETE', `/testsets/${id}/rows`, { row_ids: [a] });
    expect(deleted.body).toMatchObject({ number: 4, change: 'rows_deleted', row_count: 3 });

    const replaced = await server.request('PUT', `/testsets/${id}`, { name: 'renamed', csvdata: [{ x: 1 }] });
    expect(replaced.status).toBe(200);

    expect((await revisions(id)).map((r: any) => [r.number, r.change, r.name, r.row_count])).toEqual([
      [1, 'created', 'revised', 3],
      [2, 'rows_added', 'revised', 4],
      [3, 'rows_edited', 'revised', 4],
      [4, 'rows_deleted', 'revised', 3],
      [5, 'replaced', 'renamed', 1],
    ]);
    expect(data(await revision(id, 1))).toEqual([{ q: 'a' }, { q: 'b' }, { q: 'c' }]);
    expect(data(await revision(id, 2))).toEqual([{ q: 'a' }, { q: 'b' }, { q: 'c' }, { q: 'd', answer: 'D' }]);
    const third = await revision(id, 3);
    expect(data(third)).toEqual([{ q: 'a' }, { q: 'B' }, { q: 'c' }, { q: 'd', answer: 'D' }]);
    // An edit is a new version of the row at the same position; unchanged rows keep their ids.
    expect(third.rows.map((row: any) => row.position)).toEqual([0, 1, 2, 3]);
    expect(third.rows[1].id).not.toBe(b);
    expect([third.rows[0].id, third.rows[2].id]).toEqual([a, c]);
    const fourth = await revision(id, 4);
    expect(fourth.rows.map((row: any) => [row.position, row.data])).toEqual([
      [1, { q: 'B' }],
      [2, { q: 'c' }],
      [3, { q: 'd', answer: 'D' }],
    ]);
    expect(data(await revision(id, 5))).toEqual([{ x: 1 }]);
    expect((await server.request('GET', `/testsets/${id}`)).body.csvdata).toEqual([{ x: 1 }]);
  });

  it('upload makes revision 1 of its own kind', async () => {
    const form = new FormData();
    form.append('testset_name', 'uploaded');
    form.append('file', new Blob(['q,answer\nx,y\n'], { type: 'text/csv' }), 'uploaded.csv');
    const created = await server.request('POST', '/testsets/upload', form);
    expect(created.status).toBe(200);
    expect(await revisions(created.body.id)).toEqual([
      { testset_id: created.body.id, number: 1, change: 'uploaded', name: 'uploaded', columns: ['q', 'answer'], row_count: 1, created_at: expect.any(String) },
    ]);
  });

  it('answers 404 for unknown revisions and rows that are not current rows of the set, and changes nothing then', async () => {
    const { id } = await createTestset(server, [{ q: 'a' }, { q: 'b' }]);
    const other = await createTestset(server, [{ q: 'other' }]);
    const otherRow = (await revision(other.id, 1)).rows[0].id;
    const [a] = (await revision(id, 1)).rows.map((row: any) => row.id);
    for (const number of ['2', '0', 'x', '99999999999']) {
      const response = await server.request('GET', `/testsets/${id}/revisions/${number}`);
      expect(response.status, number).toBe(404);
      expect(response.body).toEqual({ detail: `TestsetRevision with id ${id}/${number} not found` });
    }
    expect((await server.request('GET', `/testsets/nope/revisions`)).body).toEqual({ detail: 'Testset with id nope not found' });
    expect((await server.request('PATCH', `/testsets/${id}/rows`, { rows: [{ row_id: otherRow, data: { q: 'x' } }] })).body).toEqual({
      detail: `TestsetRow with id ${otherRow} not found`,
    });
    expect((await server.request('POST', `/testsets/${id}/rows`, { rows: [{ q: 'edited' }] })).status).toBe(200);
    // a is no longer current once edited: editing or deleting that version again is a 404.
    await server.request('PATCH', `/testsets/${id}/rows`, { rows: [{ row_id: a, data: { q: 'A' } }] });
    expect((await server.request('DELETE', `/testsets/${id}/rows`, { row_ids: [a] })).status).toBe(404);
    expect((await revisions(id)).map((r: any) => r.number)).toEqual([1, 2, 3]);
  });

  it('answers 422 naming the field for empty changes and for deleting every row', async () => {
    const { id } = await createTestset(server, [{ q: 'a' }]);
    const [a] = (await revision(id, 1)).rows.map((row: any) => row.id);
    const cases: [string, unknown, (string | number)[]][] = [
      ['POST', { rows: [] }, ['body', 'rows']],
      ['POST', { rows: ['not a row'] }, ['body', 'rows', 0]],
      ['PATCH', { rows: [{ row_id: a }] }, ['body', 'rows', 0, 'data']],
      [
        'PATCH',
        {
          rows: [
            { row_id: a, data: { q: 1 } },
            { row_id: a, data: { q: 2 } },
          ],
        },
        ['body', 'rows', 1, 'row_id'],
      ],
      ['DELETE', { row_ids: [] }, ['body', 'row_ids']],
      ['DELETE', { row_ids: [a] }, ['body', 'row_ids']],
    ];
    for (const [method, body, loc] of cases) {
      const response = await server.request(method, `/testsets/${id}/rows`, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail[0].loc).toEqual(loc);
    }
    expect(await revisions(id)).toHaveLength(1);
  });
});

describe('PATCH /testsets/{id}/columns', () => {
  it('renames and removes columns in every row as a revision; the old one keeps them; faults name the column', async () => {
    const { id } = await createTestset(server, [
      { q: 'a', answer: 'A', note: 1 },
      { q: 'b', other: true },
    ]);
    const changed = await server.request('PATCH', `/testsets/${id}/columns`, { rename: { answer: 'correct_answer' }, remove: ['note'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ number: 2, change: 'columns_changed', columns: ['q', 'correct_answer', 'other'], row_count: 2 });
    const second = await revision(id, 2);
    expect(data(second)).toEqual([
      { q: 'a', correct_answer: 'A' },
      { q: 'b', other: true },
    ]);
    const first = await revision(id, 1);
    expect(data(first)).toEqual([
      { q: 'a', answer: 'A', note: 1 },
      { q: 'b', other: true },
    ]);
    // Only the rows holding a changed column get a new version.
    expect(second.rows[1].id).toBe(first.rows[1].id);
    expect(second.rows[0].id).not.toBe(first.rows[0].id);

    const cases: [unknown, (string | number)[], string][] = [
      [{ rename: { nope: 'x' } }, ['body', 'rename', 'nope'], 'The test set has no column nope'],
      [{ remove: ['nope'] }, ['body', 'remove', 'nope'], 'The test set has no column nope'],
      [{ rename: { q: 'other' } }, ['body', 'rename', 'q'], 'Column other would be there twice'],
      [{}, ['body', 'rename'], 'Rename or remove at least one column'],
    ];
    for (const [body, loc, msg] of cases) {
      const response = await server.request('PATCH', `/testsets/${id}/columns`, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, msg }));
    }
    expect(await revisions(id)).toHaveLength(2);
    expect((await server.request('PATCH', `/testsets/nope/columns`, { remove: ['q'] })).body).toEqual({ detail: 'Testset with id nope not found' });

    const graphql = await server.graphql(`mutation($id: ID!) { changeTestsetColumns(id: $id, rename: { q: "question" }) { number change columns } }`, {
      id: globalId('Testset', id),
    });
    expect(graphql.data.changeTestsetColumns).toEqual({ number: 3, change: 'COLUMNS_CHANGED', columns: ['question', 'correct_answer', 'other'] });
  });
});

describe('GraphQL revisions', () => {
  it('lists revisions, reads one by number with its rows, and changes rows by global id', async () => {
    const { id } = await createTestset(server, [{ q: 'a' }, { q: 'b' }]);
    const testsetId = globalId('Testset', id);
    const rows = await server.graphql(`query($id: ID!) { testset(id: $id) { rows { edges { node { id } } } } }`, { id: testsetId });
    const [a, b] = rows.data.testset.rows.edges.map((edge: any) => edge.node.id);

    const edit = await server.graphql(
      `mutation($id: ID!, $rows: [EditTestsetRowInput!]!) { editTestsetRows(id: $id, rows: $rows) { number change rowCount rows { edges { node { data revisionFrom } } } } }`,
      { id: testsetId, rows: [{ rowId: a, data: { q: 'A' } }] },
    );
    expect(edit.errors).toBeUndefined();
    expect(edit.data.editTestsetRows).toEqual({
      number: 2,
      change: 'ROWS_EDITED',
      rowCount: 2,
      rows: {
        edges: [{ node: { data: { q: 'A' }, revisionFrom: 2 } }, { node: { data: { q: 'b' }, revisionFrom: 1 } }],
      },
    });
    const add = await server.graphql(`mutation($id: ID!, $rows: [JSON!]!) { addTestsetRows(id: $id, rows: $rows) { number change } }`, {
      id: testsetId,
      rows: [{ q: 'c' }],
    });
    expect(add.data.addTestsetRows).toEqual({ number: 3, change: 'ROWS_ADDED' });
    const remove = await server.graphql(`mutation($id: ID!, $rowIds: [ID!]!) { deleteTestsetRows(id: $id, rowIds: $rowIds) { number rowCount } }`, {
      id: testsetId,
      rowIds: [b],
    });
    expect(remove.data.deleteTestsetRows).toEqual({ number: 4, rowCount: 2 });

    const read = await server.graphql(
      `query($id: ID!) { testset(id: $id) {
        currentRevision
        revisions { edges { node { number change rowCount } } }
        first: revision(number: 1) { name columns rows { edges { node { id data revisionTo } } } }
        missing: revision(number: 9) { number }
      } }`,
      { id: testsetId },
    );
    expect(read.data.testset.currentRevision).toBe(4);
    expect(read.data.testset.revisions.edges.map((edge: any) => edge.node)).toEqual([
      { number: 1, change: 'CREATED', rowCount: 2 },
      { number: 2, change: 'ROWS_EDITED', rowCount: 2 },
      { number: 3, change: 'ROWS_ADDED', rowCount: 3 },
      { number: 4, change: 'ROWS_DELETED', rowCount: 2 },
    ]);
    expect(read.data.testset.first.rows.edges.map((edge: any) => edge.node)).toEqual([
      { id: a, data: { q: 'a' }, revisionTo: 2 },
      { id: b, data: { q: 'b' }, revisionTo: 4 },
    ]);
    expect(read.data.testset.missing).toBeNull();
    expect(read.errors[0].message).toBe(`TestsetRevision with id ${id}/9 not found`);
  });
});
