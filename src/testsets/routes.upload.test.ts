import { describe, expect, it } from 'vitest';
import { useTestServer, requester } from '../../test/helpers/server.js';

// A small body limit, so the 413 of an oversized file is cheap to provoke.
const MAX_BODY_BYTES = 64 * 1024;

const server = useTestServer({ MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

type FileContent = string | Uint8Array<ArrayBuffer>;

/** A multipart form: `file` (when given) and text fields, in the order listed. */
function form(parts: Array<['file', FileContent, string] | [string, string]>): FormData {
  const data = new FormData();
  for (const part of parts) {
    if (part.length === 3) data.append(part[0], new Blob([part[1]]), part[2]);
    else data.append(part[0], part[1]);
  }
  return data;
}

async function upload(parts: Parameters<typeof form>[0]) {
  return server.request('POST', '/testsets/upload', form(parts));
}

async function csvdataOf(id: string) {
  const response = await server.request('GET', `/testsets/${id}`);
  expect(response.status).toBe(200);
  return response.body.csvdata;
}

function fileFault(msg: string | RegExp) {
  return { detail: [{ loc: ['body', 'file'], msg: typeof msg === 'string' ? msg : expect.stringMatching(msg), type: 'value_error' }] };
}

describe('POST /testsets/upload (CSV)', () => {
  it('reads quoted commas, newlines in quotes, unicode and a BOM; names the set after the file', async () => {
    const csv =
      '\uFEFFquestion,correct_answer,notes\r\n' +
      '"Paris, Lyon or Nice?",Paris,"line one\nline two"\r\n' +
      '\r\n' +
      'Capitale du Japon ?,東京,"she said ""hi"" 👋"\r\n';
    const response = await upload([['file', csv, 'capitals.v2.csv']]);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['created_at', 'id', 'name']);
    expect(response.body.id).toMatch(UUID7);
    expect(response.body.created_at).toMatch(ISO);
    expect(response.body.name).toBe('capitals.v2');
    expect(await csvdataOf(response.body.id)).toEqual([
      { question: 'Paris, Lyon or Nice?', correct_answer: 'Paris', notes: 'line one\nline two' },
      { question: 'Capitale du Japon ?', correct_answer: '東京', notes: 'she said "hi" 👋' },
    ]);
  });

  it('takes testset_name, upload_type and app_id in any order, before or after the file', async () => {
    const app = await server.request('POST', '/apps', { app_name: 'upload-app' });
    const response = await upload([
      ['upload_type', 'CSV'],
      ['file', 'a,b\n1,2\n', 'ignored.csv'],
      ['testset_name', '  Named by the form  '],
      ['app_id', app.body.app_id],
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.name).toBe('Named by the form');
    const read = await server.request('GET', `/testsets/${response.body.id}`);
    expect(read.body).toMatchObject({ app_id: app.body.app_id, csvdata: [{ a: '1', b: '2' }] });
  });

  it('treats blank form fields as absent', async () => {
    const response = await upload([
      ['file', 'a\nx\n', 'blank-fields.csv'],
      ['testset_name', ''],
      ['upload_type', ''],
      ['app_id', ''],
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.name).toBe('blank-fields');
  });

  it('cuts a name taken from a long file name to 255 characters', async () => {
    const response = await upload([['file', 'a\n1\n', `${'x'.repeat(300)}.csv`]]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.name).toBe('x'.repeat(255));
  });

  it('is served under /api', async () => {
    const response = await server.request('POST', '/api/testsets/upload/', form([['file', 'a\n1\n', 'api.csv']]));
    expect(response.status).toBe(200);
  });

  it.each([
    ['a row with too many cells', 'a,b\n1,2\n3,4,5\n', /^Invalid CSV: Invalid Record Length: .*on line 3$/],
    ['a row with too few cells', 'a,b\n1,2\n3\n', /^Invalid CSV: Invalid Record Length: .*on line 3$/],
    ['an unclosed quote', 'a,b\n1,"open\n2,3\n', /^Invalid CSV: Quote Not Closed: the parsing is finished with an opening quote at line 3$/],
    ['a quote inside a field', 'a,b\n1,"x"y\n', /^Invalid CSV: Invalid Closing Quote: .* at line 2 /],
    ['a header without rows', 'question,correct_answer\n', /^The CSV file has a header row but no data rows$/],
    ['an empty file', '\n\n', /^The file is empty$/],
    ['a duplicated column', 'a,b,a\n1,2,3\n', /^Invalid CSV: Column "a" appears twice in the header row$/],
    ['an unnamed column', 'a,,c\n1,2,3\n', /^Invalid CSV: Column 2 of the header row has no name$/],
    ['bytes that are not UTF-8', new Uint8Array([0x61, 0x0a, 0xff, 0xfe, 0x0a]), /^The file is not valid UTF-8 text$/],
  ])('answers 422 at ["body","file"] for %s', async (_case, content, msg) => {
    const response = await upload([['file', content, 'bad.csv']]);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(fileFault(msg));
  });
});

describe('POST /testsets/upload (JSON)', () => {
  it('reads an array of objects with any JSON values', async () => {
    const rows = [
      { question: 'q1', correct_answer: 'a1', meta: { tags: ['x', 'y'], score: 0.5 } },
      { question: 'q2', correct_answer: null },
    ];
    const response = await upload([
      ['upload_type', 'JSON'],
      ['file', JSON.stringify(rows), 'cases.json'],
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.name).toBe('cases');
    expect(await csvdataOf(response.body.id)).toEqual(rows);
  });

  it('accepts a JSON file that starts with a BOM', async () => {
    const response = await upload([
      ['upload_type', 'JSON'],
      ['file', '\uFEFF[{"a": "b"}]', 'bom.json'],
    ]);
    expect(response.status, response.text).toBe(200);
    expect(await csvdataOf(response.body.id)).toEqual([{ a: 'b' }]);
  });

  it.each([
    ['malformed JSON', '[{"a": 1}', /^Invalid JSON: /],
    ['an object instead of an array', '{"a": 1}', /^The JSON file must hold an array of objects \(column → value\)$/],
    ['an empty array', '[]', /^The JSON array holds no rows$/],
    ['an item that is not an object', '[{"a": 1}, {"a": 2}, [3]]', /^Item 2 of the JSON array is not an object \(column → value\)$/],
  ])('answers 422 at ["body","file"] for %s', async (_case, content, msg) => {
    const response = await upload([
      ['upload_type', 'JSON'],
      ['file', content, 'bad.json'],
    ]);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(fileFault(msg));
  });
});

describe('POST /testsets/upload: faults of the request', () => {
  it('answers 422 missing when there is no file, listing the other faults too', async () => {
    const response = await upload([
      ['upload_type', 'XML'],
      ['testset_name', 'no file'],
    ]);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [
        { loc: ['body', 'file'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'upload_type'], msg: "Input should be 'CSV' or 'JSON'", type: 'enum' },
      ],
    });
  });

  it('answers 422 enum for an unknown upload_type', async () => {
    const response = await upload([
      ['file', 'a\n1\n', 'x.csv'],
      ['upload_type', 'csv'],
    ]);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body', 'upload_type'], msg: "Input should be 'CSV' or 'JSON'", type: 'enum' }],
    });
  });

  it('answers 422 when file is a text field rather than a file', async () => {
    const response = await upload([['file', 'a,b\n1,2\n']]);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body', 'file'], msg: 'Expected a file upload, received a text field', type: 'value_error' }],
    });
  });

  it('answers 422 missing file for a request that is not multipart', async () => {
    const response = await server.request('POST', '/testsets/upload', { file: 'a,b\n1,2\n' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }] });
  });

  it.each([
    ['without a boundary', 'multipart/form-data', 'a,b\n1,2\n', 'Multipart: Boundary not found'],
    [
      'cut short inside a part',
      'multipart/form-data; boundary=XYZ',
      '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b\n1,2\n',
      'Part terminated early due to unexpected end of multipart data',
    ],
  ])('answers 422 at ["body"] for a multipart body %s', async (_case, contentType, body, cause) => {
    // Over a socket: how the parser sees a body cut short depends on how the request stream ends.
    const response = await requester(server.baseUrl)('POST', '/testsets/upload', body, { 'content-type': contentType });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body'], msg: `Invalid multipart/form-data body: ${cause}`, type: 'value_error' }],
    });
  });

  it('ignores file parts under other names', async () => {
    const data = form([['testset_name', 'other part']]);
    data.append('attachment', new Blob(['a\n1\n']), 'other.csv');
    const response = await server.request('POST', '/testsets/upload', data);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers 422 at testset_name when neither the form nor the file name gives one', async () => {
    const response = await upload([['file', 'a\n1\n', '']]);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body', 'testset_name'], msg: 'Field required when the file has no name', type: 'missing' }],
    });
  });

  it('answers 404 for an unknown app_id', async () => {
    const response = await upload([
      ['file', 'a\n1\n', 'x.csv'],
      ['app_id', UNKNOWN_ID],
    ]);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: `App with id ${UNKNOWN_ID} not found` });
  });

  it('answers 413 for a file over MAX_BODY_BYTES and stores nothing', async () => {
    const before = await server.assay.db.testset.count();
    const row = 'some question,some answer\n';
    const csv = 'question,correct_answer\n' + row.repeat(Math.ceil((MAX_BODY_BYTES * 2) / row.length));
    const response = await upload([['file', csv, 'huge.csv']]);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ detail: 'request file too large' });
    expect(await server.assay.db.testset.count()).toBe(before);
  });

  it('answers 413 for a JSON body over MAX_BODY_BYTES', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ question: `question number ${i}` }));
    const response = await server.request('POST', '/testsets', { name: 'too big', csvdata: rows });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });
});
