// LLM-as-a-judge (auto_ai_critique): the config's messages, placeholders filled from the case
// (template.ts), sent to its model at temperature 0 through the shared provider client; the
// score is read from the reply (parseJudgeScore). Edge cases are listed in ../scoring.ts.
import { result } from '../results.js';
import { ProviderCallError, type ProviderClient } from '../../providers/client.js';
import { defaultJudgePrompt } from '../registry.js';
import { isReserved, parseTemplate, renderTemplate } from '../template.js';
import {
  type ScoringCase,
  type ScoringContext,
  ScoringFault,
  groundTruthColumn,
  guarded,
  isPlainObject,
  missingColumnMessage,
  requireGroundTruth,
  toText,
} from './common.js';
import { excerpt } from '../../shared/errors.js';

export const DEFAULT_JUDGE_MODEL = 'gpt-4o-mini';

/** The provider client, or a fault when the runner offers none. */
export function providersOf(context: ScoringContext): ProviderClient {
  if (!context.providers) throw new ScoringFault('This evaluator calls a model provider, which is not available here');
  return context.providers;
}

/** A provider call whose failure (after its retries) becomes an error result naming the evaluator's call. */
export async function askProvider<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderCallError) throw new ScoringFault(`${what} failed: ${error.message}`);
    throw error;
  }
}

/** The model setting, else the evaluator's default. */
export function modelSetting(settings: Record<string, unknown>, fallback: string): string {
  const model = settings.model;
  return typeof model === 'string' && model.trim() !== '' ? model.trim() : fallback;
}

const NUMBER = String.raw`[-+]?(?:\d+(?:\.\d+)?|\.\d+)`;
const FENCED = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;
const ALONE = new RegExp(String.raw`^\**(${NUMBER})\**\s*(?:(?:/|out of)\s*\d+(?:\.\d+)?)?\s*[.!]?$`, 'i');
const LABELLED = new RegExp(String.raw`\b(?:score|rating|grade)\**\s*(?:is|of|:|=|-)?\s*\**\s*(${NUMBER})`, 'gi');
const ANY_NUMBER = new RegExp(NUMBER, 'g');

function finite(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && new RegExp(`^\\s*${NUMBER}\\s*$`).test(value)) return Number(value);
  return undefined;
}

/**
 * The score in a judge's reply, or undefined when it holds none. In order: JSON (in a code
 * fence or not) that is a number or an object with a numeric "score"; a reply that is a number
 * alone (also "8/10", "8 out of 10", "**8**"); the last labelled number ("Score: 7",
 * "rating = 0.5", "Score is 9/10"); else the only number in the reply. Several unlabelled numbers
 * are ambiguous: undefined.
 */
export function parseJudgeScore(reply: string): number | undefined {
  const trimmed = reply.trim();
  const body = FENCED.exec(trimmed)?.[1]?.trim() ?? trimmed;
  try {
    const parsed: unknown = JSON.parse(body);
    const score = isPlainObject(parsed) ? finite(parsed.score) : finite(parsed);
    if (score !== undefined) return score;
  } catch {
    // not JSON
  }
  const alone = ALONE.exec(body);
  if (alone) return Number(alone[1]);
  const labelled = [...body.matchAll(LABELLED)];
  if (labelled.length > 0) return Number(labelled[labelled.length - 1][1]);
  const numbers = body.match(ANY_NUMBER) ?? [];
  return numbers.length === 1 ? Number(numbers[0]) : undefined;
}

interface JudgeMessage {
  role: string;
  content: string;
}

function promptTemplate(settings: Record<string, unknown>): JudgeMessage[] {
  const template = settings.prompt_template ?? defaultJudgePrompt;
  if (
    !Array.isArray(template) ||
    template.length === 0 ||
    !template.every((m) => isPlainObject(m) && typeof m.role === 'string' && typeof m.content === 'string')
  ) {
    throw new ScoringFault('The evaluator setting "prompt_template" must be a list of {role, content} messages; edit the evaluator configuration');
  }
  return template as JudgeMessage[];
}

/** The judge's messages for a case, every placeholder filled. */
export function judgeMessages(settings: Record<string, unknown>, scoringCase: ScoringCase): JudgeMessage[] {
  const template = promptTemplate(settings);
  const truthColumn = groundTruthColumn(settings, scoringCase.correctAnswerColumn);
  const { testcase } = scoringCase;
  const value = (name: string): string => {
    if (isReserved(name)) {
      switch (name) {
        case 'prediction':
        case 'variant_output':
          return toText(scoringCase.output);
        case 'ground_truth':
        case 'correct_answer':
          return toText(requireGroundTruth(settings, scoringCase));
        case 'inputs':
          return JSON.stringify(Object.fromEntries(Object.entries(testcase).filter(([column]) => column !== truthColumn)));
      }
    }
    if (!Object.hasOwn(testcase, name) || testcase[name] === undefined) throw new ScoringFault(missingColumnMessage(testcase, name));
    return toText(testcase[name]);
  };
  return template.map((message) => {
    try {
      parseTemplate(message.content);
    } catch (error) {
      throw new ScoringFault(`The evaluator's prompt_template is not valid: ${(error as Error).message}`);
    }
    return { role: message.role, content: renderTemplate(message.content, value) };
  });
}

export const aiCritique = guarded(async (settings, scoringCase, context) => {
  const messages = judgeMessages(settings, scoringCase);
  const providers = providersOf(context);
  const model = modelSetting(settings, DEFAULT_JUDGE_MODEL);
  const reply = await askProvider(`The judge ${model}`, () => providers.chat(model, { messages, temperature: 0 }));
  const score = parseJudgeScore(reply.content);
  if (score === undefined) throw new ScoringFault(`The judge's reply has no score: "${excerpt(reply.content, 300)}"`);
  return result('number', score);
});
