// RAG paths (test case columns, the output, the case's trace), and cosine similarity.
import { describe, expect, it } from 'vitest';
import { resolvePath } from './rag.js';
import { cosineSimilarity } from './semantic.js';
import { scoringCase } from '../../../test/helpers/scorers.js';

const ragCase = scoringCase({
  output: '{"answer": "Paris", "sources": [{"content": "Paris is the capital."}]}',
  testcase: { question: 'Capital of France?', 'meta.q': 'dotted', meta: { lang: 'en' } },
  trace: [
    {
      id: 'call',
      parentId: null,
      name: 'rag.app',
      inputs: { inputs: { question: 'Capital of France?' } },
      outputs: { output: 'Paris', contexts: ['a', 'b'] },
      internals: null,
    },
    // The app's own spans (Agenta's trace in its answer): rag > retriever, rag > reporter.
    { id: 'r', parentId: 'call', name: 'rag', inputs: {}, outputs: {}, internals: null },
    { id: 'r1', parentId: 'r', name: 'retriever', inputs: {}, outputs: { movies: ['m1', 'm2'] }, internals: { prompt: 'Movies about witches' } },
    { id: 'r2', parentId: 'r', name: 'reporter', inputs: {}, outputs: { report: 'Witches…' }, internals: null },
    // A span of the same name elsewhere in the tree is not on the line of descent.
    { id: 'x', parentId: 'call', name: 'retriever', inputs: {}, outputs: { movies: ['other'] }, internals: null },
  ],
});

describe('resolvePath', () => {
  it.each([
    ['question', 'Capital of France?'],
    ['testcase.question', 'Capital of France?'],
    ['meta.q', 'dotted'],
    ['testcase.meta.lang', 'en'],
    ['output.answer', 'Paris'],
    ['output.sources.0.content', 'Paris is the capital.'],
    ['trace.rag.app.outputs.contexts', ['a', 'b']],
    ['trace.rag.app.inputs.inputs.question', 'Capital of France?'],
    ['trace.retriever.internals.prompt', 'Movies about witches'],
    ['rag.retriever.internals.prompt', 'Movies about witches'],
    ['rag.retriever.outputs.movies', ['m1', 'm2']],
    ['rag.reporter.outputs.report', 'Witches…'],
    ['retriever.outputs.movies', ['m1', 'm2']],
  ])('reads %s', (path, expected) => {
    expect(resolvePath(path, 'question_key', ragCase)).toEqual(expected);
  });

  it.each([
    ['contexts', 'The contexts_key path "contexts" resolves to nothing: the test case has no such column (columns: question, meta.q, meta)'],
    ['output.missing', 'The contexts_key path "output.missing" resolves to nothing: the variant\'s output has no such field'],
    [
      'trace.retrieval.outputs.documents',
      'The contexts_key path "trace.retrieval.outputs.documents" resolves to nothing: the trace has no span named "retrieval" (spans: rag.app, rag, retriever, reporter, retriever)',
    ],
    [
      'rag.ranker.outputs.documents',
      'The contexts_key path "rag.ranker.outputs.documents" resolves to nothing: the test case has no such column (columns: question, meta.q, meta), ' +
        'nor has the trace spans named "rag" > "ranker" (spans: rag.app, rag, retriever, reporter, retriever)',
    ],
    [
      'rag.retriever.outputs.documents',
      'The contexts_key path "rag.retriever.outputs.documents" resolves to nothing: span "rag > retriever" has nothing at outputs.documents',
    ],
    [
      'trace.rag.app.outputs.documents',
      'The contexts_key path "trace.rag.app.outputs.documents" resolves to nothing: span "rag.app" has nothing at outputs.documents',
    ],
    ['trace.rag.app', 'The contexts_key path "trace.rag.app" resolves to nothing: a trace path is "trace.<span name>.<inputs|outputs|internals>.<field>…"'],
  ])('names %s when it resolves to nothing', (path, message) => {
    expect(() => resolvePath(path, 'contexts_key', ragCase)).toThrow(message);
  });
});

describe('cosineSimilarity', () => {
  it('is 1 for the same direction, 0 for orthogonal, -1 for opposite; undefined for zero or mismatched vectors', () => {
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([1, 0], [0, 5])).toBe(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1, 12);
    expect(cosineSimilarity([3, 4], [4, 3])).toBeCloseTo(24 / 25, 12);
    expect(cosineSimilarity([0, 0], [1, 1])).toBeUndefined();
    expect(cosineSimilarity([1], [1, 2])).toBeUndefined();
  });
});
