// rag_faithfulness and rag_context_relevancy: a model judges, from 0 to 1, whether the answer's
// claims are supported by the retrieved contexts, or how relevant the contexts are to the question.
// The question, answer and contexts are read by path (resolvePath). Edge cases in ../scoring.ts.
import { result } from '../results.js';
import { type ScoringCase, ScoringFault, type Scorer, type TraceSpanView, guarded, isPlainObject, toText } from './common.js';
import { DEFAULT_JUDGE_MODEL, askProvider, modelSetting, parseJudgeScore, providersOf } from './critique.js';
import { excerpt } from '../../shared/errors.js';

const TRACE_SECTIONS = ['inputs', 'outputs', 'internals'] as const;

/** Reads `fields` (a dotted path) into `value`; undefined where it leads nowhere. JSON texts are parsed on the way. */
function dig(value: unknown, fields: string[]): unknown {
  let current = value;
  for (const field of fields) {
    if (typeof current === 'string') {
      try {
        current = JSON.parse(current);
      } catch {
        return undefined;
      }
    }
    if (Array.isArray(current) && /^\d+$/.test(field)) current = current[Number(field)];
    else if (isPlainObject(current) && Object.hasOwn(current, field)) current = current[field];
    else return undefined;
  }
  return current;
}

/** The sections of a span a trace path reads, after the span's name: `<name>.<section>.<field>…`. */
function splitTracePath(segments: string[]): { names: string[]; section: (typeof TRACE_SECTIONS)[number]; fields: string[] } | null {
  const at = segments.findIndex((segment, index) => index > 0 && (TRACE_SECTIONS as readonly string[]).includes(segment));
  return at === -1 ? null : { names: segments.slice(0, at), section: segments[at] as (typeof TRACE_SECTIONS)[number], fields: segments.slice(at + 1) };
}

/**
 * Agenta's form `<span>.<child span>….<section>.<field>…` (`rag.retriever.internals.prompt`): the
 * spans named along a line of descent, from a span named by the first name; the first found.
 */
function spanByDescent(spans: readonly TraceSpanView[], names: string[]): TraceSpanView | undefined {
  let candidates = spans.filter((span) => span.name === names[0]);
  for (const name of names.slice(1)) {
    const parents = new Set(candidates.map((span) => span.id));
    candidates = spans.filter((span) => span.parentId !== null && parents.has(span.parentId) && span.name === name);
  }
  return candidates[0];
}

/**
 * The value a RAG setting's path points at, or a ScoringFault naming the path (`setting`) when it
 * resolves to nothing (absent, or null):
 * - "output", "output.<field>…": the variant's output (a JSON text is parsed to read a field);
 * - "trace.<span name>.<inputs|outputs|internals>[.<field>…]": the first span of that name in the
 *   case's trace (the span name may itself contain dots);
 * - "testcase.<column>[.<field>…]" or "<column>[.<field>…]": a test case column (a column whose
 *   name is the whole path wins over a nested reading);
 * - otherwise Agenta's "<span>.<child span>….<inputs|outputs|internals>.<field>…", spans named
 *   along a line of descent in the case's trace (the app's own spans, docs/evaluations.md#the-apps-own-trace).
 */
export function resolvePath(path: string, setting: string, scoringCase: ScoringCase): unknown {
  const fail = (why: string): never => {
    throw new ScoringFault(`The ${setting} path "${path}" resolves to nothing: ${why}`);
  };
  const spans = scoringCase.trace ?? [];
  const spanNames = () => spans.map((s) => s.name).join(', ') || 'none';
  let value: unknown;
  if (path === 'output' || path.startsWith('output.')) {
    value = dig(scoringCase.output, path === 'output' ? [] : path.slice('output.'.length).split('.'));
    if (value === undefined || value === null) fail("the variant's output has no such field");
  } else if (path.startsWith('trace.')) {
    const parts = splitTracePath(path.slice('trace.'.length).split('.'));
    if (!parts) return fail('a trace path is "trace.<span name>.<inputs|outputs|internals>.<field>…"');
    const name = parts.names.join('.');
    const span = spans.find((candidate) => candidate.name === name);
    if (!span) return fail(`the trace has no span named "${name}" (spans: ${spanNames()})`);
    value = dig(span[parts.section], parts.fields);
    if (value === undefined || value === null) fail(`span "${name}" has nothing at ${[parts.section, ...parts.fields].join('.')}`);
  } else {
    const key = path.startsWith('testcase.') ? path.slice('testcase.'.length) : path;
    const { testcase } = scoringCase;
    value = Object.hasOwn(testcase, key) ? testcase[key] : dig(testcase, key.split('.'));
    const parts = key === path ? splitTracePath(path.split('.')) : null;
    const span = parts && (value === undefined || value === null) ? spanByDescent(spans, parts.names) : undefined;
    if (parts && span) {
      value = dig(span[parts.section], parts.fields);
      if (value === undefined || value === null) fail(`span "${parts.names.join(' > ')}" has nothing at ${[parts.section, ...parts.fields].join('.')}`);
    } else if (value === undefined || value === null) {
      fail(
        `the test case has no such column (columns: ${Object.keys(testcase).join(', ') || 'none'})` +
          (parts ? `, nor has the trace spans named ${parts.names.map((n) => `"${n}"`).join(' > ')} (spans: ${spanNames()})` : ''),
      );
    }
  }
  return value;
}

/** A context item as text: a string as is, an object's content/page_content/text, else its JSON. */
function contextText(item: unknown): string {
  if (isPlainObject(item)) {
    for (const field of ['content', 'page_content', 'text']) if (typeof item[field] === 'string') return item[field];
  }
  return toText(item);
}

function contextsOf(value: unknown, path: string): string[] {
  let items = value;
  if (typeof items === 'string') {
    try {
      const parsed: unknown = JSON.parse(items);
      if (Array.isArray(parsed)) items = parsed;
    } catch {
      // one context text
    }
  }
  const texts = (Array.isArray(items) ? items : [items]).map(contextText).filter((text) => text.trim() !== '');
  if (texts.length === 0) throw new ScoringFault(`The contexts_key path "${path}" resolves to no context text`);
  return texts;
}

function stringSettingOr(settings: Record<string, unknown>, key: string, fallback: string): string {
  const value = settings[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

const REPLY_FORMAT = 'Reply with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.';

export const FAITHFULNESS_PROMPT =
  'You judge whether an answer is faithful to the retrieved contexts it was based on. Break the answer into its factual claims and ' +
  'decide for each whether the contexts support it (a claim the contexts do not state or imply is unsupported). The score is the ' +
  'number of supported claims divided by the number of claims (1 when the answer makes no factual claim). ' +
  REPLY_FORMAT;

export const CONTEXT_RELEVANCY_PROMPT =
  'You judge how relevant retrieved contexts are to a question. Decide for each context whether it contains information needed ' +
  'to answer the question. The score is the number of relevant contexts divided by the number of contexts. ' +
  REPLY_FORMAT;

function numbered(contexts: string[]): string {
  return contexts.map((text, index) => `[${index + 1}] ${text}`).join('\n\n');
}

function ragScorer(kind: 'faithfulness' | 'context_relevancy'): Scorer {
  return guarded(async (settings, scoringCase, context) => {
    const questionKey = stringSettingOr(settings, 'question_key', 'question');
    const contextsKey = stringSettingOr(settings, 'contexts_key', 'contexts');
    const question = toText(resolvePath(questionKey, 'question_key', scoringCase));
    const contexts = contextsOf(resolvePath(contextsKey, 'contexts_key', scoringCase), contextsKey);
    let user = `Question:\n${question}\n\nContexts:\n${numbered(contexts)}`;
    if (kind === 'faithfulness') {
      const answerKey = stringSettingOr(settings, 'answer_key', 'output');
      user += `\n\nAnswer:\n${toText(resolvePath(answerKey, 'answer_key', scoringCase))}`;
    }
    const providers = providersOf(context);
    const model = modelSetting(settings, DEFAULT_JUDGE_MODEL);
    const messages = [
      { role: 'system', content: kind === 'faithfulness' ? FAITHFULNESS_PROMPT : CONTEXT_RELEVANCY_PROMPT },
      { role: 'user', content: user },
    ];
    const reply = await askProvider(`The judge ${model}`, () => providers.chat(model, { messages, temperature: 0 }));
    const score = parseJudgeScore(reply.content);
    if (score === undefined) throw new ScoringFault(`The judge's reply has no score: "${excerpt(reply.content, 300)}"`);
    if (score < 0 || score > 1) throw new ScoringFault(`The judge's score ${score} is outside 0–1: "${excerpt(reply.content, 300)}"`);
    return result('number', score);
  });
}

export const ragFaithfulness = ragScorer('faithfulness');
export const ragContextRelevancy = ragScorer('context_relevancy');
