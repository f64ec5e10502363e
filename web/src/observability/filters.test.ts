import { describe, expect, it } from 'vitest';
import {
  attributeFilterRow,
  filterVariables,
  parseAttributeFilters,
  rowAttributeFilter,
  listVariables,
  pageVariables,
  PAGE_SIZE,
  parseScoreFilters,
  parseState,
  rowScoreFilter,
  scoreColumns,
  withoutColumn,
  scoreFilterRow,
  sortedBy,
  stateSearch,
  type ScoreFilterState,
} from './filters.ts';

describe('the trace list URL', () => {
  it('reads every filter, sort and page from the query string and writes it back the same', () => {
    const search = '?range=24h&name=chat&user=u1&model=gpt-4o&minCost=0.5&kind=LLM%2CTOOL&status=ERROR&sort=COST&dir=ASC&after=abc';
    const state = parseState(search);
    expect(state).toMatchObject({ range: '24h', name: 'chat', user: 'u1', model: 'gpt-4o', minCost: '0.5', kinds: ['LLM', 'TOOL'], statuses: ['ERROR'] });
    expect(state).toMatchObject({ sort: 'COST', direction: 'ASC', after: 'abc', before: null });
    expect(stateSearch(state)).toBe(search);
  });

  it('keeps the plain list plain and drops values it does not know', () => {
    expect(stateSearch(parseState(''))).toBe('');
    const state = parseState('?range=3y&kind=LLM,BOGUS&status=MAYBE&sort=NAME&dir=sideways');
    expect(state).toMatchObject({ range: null, kinds: ['LLM'], statuses: [], sort: 'START_TIME', direction: 'DESC' });
  });

  it('turns the state into the API variables: a relative range from now, numbers, ISO instants', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(filterVariables(parseState('?range=24h&minLatency=1.5&maxCost=abc&text=%20hi%20'), now)).toMatchObject({
      startedAfter: '2026-01-01T00:00:00.000Z',
      startedBefore: undefined,
      minLatency: 1.5,
      maxCost: undefined,
      text: 'hi',
    });
    const custom = filterVariables(parseState('?from=2026-01-01T10:00&to=nonsense'), now);
    expect(custom.startedAfter).toBe(new Date('2026-01-01T10:00').toISOString());
    expect(custom.startedBefore).toBeUndefined();
  });

  it('pages forward from `after` and backward to `before`', () => {
    expect(pageVariables(parseState(''))).toEqual({ first: PAGE_SIZE, after: undefined, last: undefined, before: undefined });
    expect(pageVariables(parseState('?before=x'))).toEqual({ last: PAGE_SIZE, before: 'x', first: undefined, after: undefined });
  });

  it('sorts by a column descending first, flips on the same column, and goes back to the first page', () => {
    const state = parseState('?after=x');
    const byCost = sortedBy(state, 'COST');
    expect(byCost).toMatchObject({ sort: 'COST', direction: 'DESC', after: null });
    expect(sortedBy(byCost, 'COST').direction).toBe('ASC');
    expect(sortedBy(sortedBy(byCost, 'COST'), 'LATENCY').direction).toBe('DESC');
  });

  it('keeps score filters (JSON, as REST takes them), score columns and hidden ones in the URL, and shows each column once', () => {
    const scores: ScoreFilterState[] = [
      { name: 'quality', min: 7, max: 9 },
      { name: 'correct', value: true },
      { name: 'tone', anyOf: ['kind'] },
      { name: 'flag', present: false },
    ];
    const state = { ...parseState(''), scores, columns: ['correct', 'helpful'], hidden: ['thumbs'], chart: 'quality' };
    const search = stateSearch(state);
    expect(new URLSearchParams(search).getAll('column')).toEqual(['correct', 'helpful']);
    expect(new URLSearchParams(search).getAll('hide')).toEqual(['thumbs']);
    expect(parseState(search)).toMatchObject({ scores, columns: ['correct', 'helpful'], hidden: ['thumbs'], chart: 'quality' });
    expect(scoreColumns(state)).toEqual(['correct', 'helpful', 'quality', 'tone', 'flag']);
    // The page's names follow by name, the hidden one left out.
    expect(scoreColumns(state, ['topic', 'thumbs', 'correct', 'accuracy'])).toEqual(['correct', 'helpful', 'quality', 'tone', 'flag', 'accuracy', 'topic']);
    expect(listVariables(state, 0)).toMatchObject({ scores, chartScores: ['quality'] });
    expect(listVariables(parseState(''), 0)).toMatchObject({ scores: undefined, chartScores: [] });
  });

  it('hides a score column until it is asked for again', () => {
    const state = { ...parseState(''), columns: ['correct'] };
    const hidden = withoutColumn(withoutColumn(state, 'correct'), 'topic');
    expect(hidden).toMatchObject({ columns: [], hidden: ['correct', 'topic'] });
    expect(scoreColumns(hidden, ['correct', 'topic', 'tone'])).toEqual(['tone']);
    expect(scoreColumns({ ...hidden, columns: ['topic'] }, ['correct', 'topic'])).toEqual(['topic']);
  });

  it('drops a score filter of the URL without a name or with two conditions, and unreadable JSON', () => {
    const text = JSON.stringify([{ name: '', present: true }, { name: 'a', value: true, present: true }, { name: 'b' }, { name: 'c', max: 1 }, 7]);
    expect(parseScoreFilters(text)).toEqual([{ name: 'c', max: 1 }]);
    expect(parseScoreFilters('{not json')).toEqual([]);
    expect(parseScoreFilters('{"name":"a"}')).toEqual([]);
  });

  it('edits a score filter as a form row and back, leaving out a row that lacks its name or number', () => {
    for (const filter of [
      { name: 'q', min: 1, max: 2 },
      { name: 'q', min: 1 },
      { name: 'q', max: 2 },
      { name: 'c', value: false },
      { name: 't', anyOf: ['a', 'b c'] },
      { name: 'f', present: true },
      { name: 'f', present: false },
    ]) {
      expect(rowScoreFilter(scoreFilterRow(filter))).toEqual(filter);
    }
    expect(rowScoreFilter({ name: ' ', condition: 'present', first: '', second: '' })).toBeNull();
    expect(rowScoreFilter({ name: 'q', condition: 'between', first: '1', second: 'x' })).toBeNull();
    expect(rowScoreFilter({ name: 'q', condition: 'anyOf', first: ' , ', second: '' })).toBeNull();
  });

  it('reads span attribute filters from the URL into the API variables and back, dropping those the API would refuse', () => {
    const attributes = [
      { key: 'gen_ai.system', operator: 'EQUALS', value: 'openai' },
      { key: 'llm.token_count.total', operator: 'EQUALS', value: 12 },
      { key: 'stream', operator: 'EQUALS', value: false },
      { key: 'input.value', operator: 'CONTAINS', value: 'refund' },
      { key: 'tool.name', operator: 'EXISTS' },
    ];
    const search = `?attributes=${encodeURIComponent(JSON.stringify(attributes))}`;
    const state = parseState(search);
    expect(state.attributes).toEqual(attributes);
    expect(stateSearch(state)).toBe(search);
    expect(filterVariables(state, 0).attributes).toEqual(attributes);
    expect(filterVariables(parseState(''), 0).attributes).toBeUndefined();
    // REST's lower-case operators read too (an online rule's stored filter); no key, no value, a list value or a bad operator do not.
    const refused = [
      { key: '', operator: 'EXISTS' },
      { key: 'a', operator: 'CONTAINS', value: '' },
      { key: 'a', operator: 'EQUALS', value: [1] },
      { key: 'a', operator: 'LIKE', value: 'x' },
    ];
    expect(parseAttributeFilters(JSON.stringify([{ key: 'a', operator: 'equals', value: 'x' }, ...refused]))).toEqual([
      { key: 'a', operator: 'EQUALS', value: 'x' },
    ]);
    expect(parseAttributeFilters('not json')).toEqual([]);
  });

  it('edits an attribute filter as a form row and back, its value read as text, a number or true/false', () => {
    for (const filter of [
      { key: 'k', operator: 'EQUALS', value: '2' },
      { key: 'k', operator: 'EQUALS', value: 2 },
      { key: 'k', operator: 'EQUALS', value: true },
      { key: 'k', operator: 'CONTAINS', value: 'Open' },
      { key: 'k', operator: 'EXISTS' },
    ] as const) {
      expect(rowAttributeFilter(attributeFilterRow(filter))).toEqual(filter);
    }
    expect(rowAttributeFilter({ key: 'k', operator: 'EQUALS', value: 'two', kind: 'number' })).toBeNull();
    expect(rowAttributeFilter({ key: 'k', operator: 'EQUALS', value: 'yes', kind: 'boolean' })).toBeNull();
    expect(rowAttributeFilter({ key: ' ', operator: 'EXISTS', value: '', kind: 'text' })).toBeNull();
    expect(rowAttributeFilter({ key: 'k', operator: 'EQUALS', value: '', kind: 'text' })).toEqual({ key: 'k', operator: 'EQUALS', value: '' });
  });
});
