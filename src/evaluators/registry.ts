// The built-in evaluators (docs/evaluators.md). Each carries a settings template: an ordered map of
// the fields a config of it takes, which a UI renders as a form and from which inputs.ts builds the
// validation schema, so a field is declared once and its form and its checks cannot drift apart.

import type { Evaluator, EvaluatorSetting } from './evaluator-types.js';

// Settings several evaluators share, declared once.

// Unset by default, so that an evaluation's `correct_answer_column` applies
// (docs/evaluations.md#ground-truth).
const correctAnswerKey: EvaluatorSetting = {
  label: 'Expected answer column',
  type: 'string',
  default: null,
  required: false,
  description:
    'The test set column holding the expected answer (a "testcase." prefix is accepted and ignored). ' +
    'When unset: the evaluation\'s correct_answer_column, else "correct_answer".',
};

const caseSensitive: EvaluatorSetting = {
  label: 'Case sensitive',
  type: 'boolean',
  default: true,
  required: false,
  description: 'Compare letters with their case; turn off to ignore upper/lower case.',
};

const substrings: EvaluatorSetting = {
  label: 'Substrings',
  type: 'string',
  default: null,
  required: true,
  description: 'The substrings to look for, separated by commas (spaces around each are ignored), e.g. "refund, invoice".',
};

function ragKeys(question: string): Record<string, EvaluatorSetting> {
  const path =
    'A test set column ("question", or "testcase.question"; "testcase.meta.question" reads a field of a JSON column), ' +
    '"output" or "output.<field>…" (the variant\'s output, read as JSON for a field), or a path into the case\'s trace ' +
    '"trace.<span name>.<inputs|outputs|internals>.<field>…". A path that resolves to nothing is an error result naming it.';
  return {
    question_key: {
      label: 'Question',
      type: 'string',
      default: 'question',
      required: false,
      description: `Where the ${question} is read. ${path}`,
    },
    answer_key: {
      label: 'Answer',
      type: 'string',
      default: 'output',
      required: false,
      description: `Where the answer is read: "output" (the default) is the variant's output. ${path}`,
    },
    contexts_key: {
      label: 'Contexts',
      type: 'string',
      default: 'contexts',
      required: false,
      description: `Where the retrieved contexts are read (a list of texts or of objects with "content"/"page_content"/"text", or one text). ${path}`,
    },
    model: {
      label: 'Model',
      type: 'string',
      default: 'gpt-4o-mini',
      required: false,
      description: 'The chat model of the provider that judges (OpenAI-compatible Chat Completions API; "<provider>/<model>" for another provider).',
    },
  };
}

/** What the AI critique asks a model when the config gives no template of its own. */
export const defaultJudgePrompt = [
  {
    role: 'system',
    content:
      'You are an expert evaluator of answers produced by an LLM application. Compare the answer with the expected answer ' +
      'and rate its correctness and completeness from 0 (wrong or unrelated) to 10 (fully correct). ' +
      'Reply with the number only.',
  },
  {
    role: 'user',
    content: 'Expected answer:\n{ground_truth}\n\nAnswer to evaluate:\n{prediction}\n\nScore (0-10):',
  },
] as const;

const evaluatorList: readonly Evaluator[] = [
  {
    key: 'auto_exact_match',
    name: 'Exact match',
    description: 'Passes when the output is exactly the expected answer.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: { correct_answer_key: correctAnswerKey },
  },
  {
    key: 'auto_contains_json',
    name: 'Contains JSON',
    description: 'Passes when the output contains a JSON object that parses.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {},
  },
  {
    key: 'auto_similarity_match',
    name: 'Similarity match',
    description: 'Passes when the word overlap (Jaccard similarity of the sets of words) between the output and the expected answer is above the threshold.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {
      similarity_threshold: {
        label: 'Similarity threshold',
        type: 'number',
        default: 0.5,
        required: false,
        description: 'The similarity (0 = no word in common, 1 = same words) the output must exceed to pass.',
        min: 0,
        max: 1,
      },
      correct_answer_key: correctAnswerKey,
    },
  },
  {
    key: 'auto_semantic_similarity',
    name: 'Semantic similarity',
    description: 'Scores how close in meaning the output is to the expected answer: the cosine similarity of their embeddings, computed by a model provider.',
    result_type: 'number',
    requires_llm_api_keys: true,
    settings_template: {
      correct_answer_key: correctAnswerKey,
      model: {
        label: 'Embedding model',
        type: 'string',
        default: 'text-embedding-3-small',
        required: false,
        description: 'The embedding model of the provider (OpenAI-compatible Embeddings API).',
      },
    },
  },
  {
    key: 'auto_regex_test',
    name: 'Regex test',
    description: 'Passes when a case-insensitive search of the regular expression in the output finds a match (or, if so set, finds none).',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {
      regex_pattern: {
        label: 'Regular expression',
        type: 'regex',
        default: null,
        required: true,
        description:
          'A regular expression in RE2 syntax (like Python re, without lookaround or backreferences), without slashes or flags, e.g. "^order #\\d+".',
      },
      regex_should_match: {
        label: 'Should match',
        type: 'boolean',
        default: true,
        required: false,
        description: 'Pass when the expression matches; turn off to pass when it does not.',
      },
      case_sensitive: {
        label: 'Case-sensitive',
        type: 'boolean',
        default: false,
        required: false,
        description: 'Tell upper from lower case; off, the search ignores case.',
      },
    },
  },
  {
    key: 'field_match_test',
    name: 'JSON field match',
    description: 'Reads the output as JSON and passes when the given field equals the expected answer.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {
      json_field: {
        label: 'JSON field',
        type: 'string',
        default: null,
        required: true,
        description: 'The top-level field of the output JSON to compare, e.g. "category".',
      },
      correct_answer_key: correctAnswerKey,
    },
  },
  {
    key: 'auto_json_diff',
    name: 'JSON diff',
    description: 'Scores from 0 to 1 how much of the expected JSON the output reproduces: the share of its flattened keys whose values (or types) match.',
    result_type: 'number',
    requires_llm_api_keys: false,
    settings_template: {
      compare_schema_only: {
        label: 'Compare schema only',
        type: 'boolean',
        default: false,
        required: false,
        description: 'Compare only the keys and the types of their values, not the values themselves.',
      },
      predict_keys: {
        label: 'Include extra output keys',
        type: 'boolean',
        default: false,
        required: false,
        description: 'Also count keys the output has but the expected JSON lacks, so extra keys lower the score.',
      },
      case_insensitive_keys: {
        label: 'Case-insensitive keys',
        type: 'boolean',
        default: false,
        required: false,
        description: 'Match keys regardless of upper/lower case.',
      },
      correct_answer_key: correctAnswerKey,
    },
  },
  {
    key: 'auto_ai_critique',
    name: 'AI critique',
    description: 'Asks a language model to judge the output with your prompt (LLM-as-a-judge) and reads the score from its reply.',
    result_type: 'number',
    requires_llm_api_keys: true,
    settings_template: {
      prompt_template: {
        label: 'Prompt template',
        type: 'messages',
        default: defaultJudgePrompt,
        required: false,
        description:
          'The messages sent to the judge. Placeholders: {prediction} (the output), {ground_truth} or {correct_answer} (the expected answer), ' +
          '{inputs} (the test case without its expected answer, as JSON) and {<column>} for any test set column; write {{ and }} for literal braces. ' +
          'The reply must contain the score: a number alone, JSON {"score": n}, or a labelled "Score: n".',
      },
      model: {
        label: 'Model',
        type: 'string',
        default: 'gpt-4o-mini',
        required: false,
        description:
          'The chat model of the provider that acts as the judge (OpenAI-compatible Chat Completions API; "<provider>/<model>" for another provider). It is asked at temperature 0.',
      },
      correct_answer_key: correctAnswerKey,
    },
  },
  {
    key: 'auto_custom_code_run',
    name: 'Custom code',
    description:
      'Runs your function evaluate in a sandbox and uses the number it returns as the score: evaluate(app_params, inputs, output, correct_answer) (version 1) or evaluate(inputs, output, trace) (version 2, the trace as a tree of spans).',
    result_type: 'number',
    requires_llm_api_keys: false,
    settings_template: {
      code: {
        label: 'Code',
        type: 'code',
        default: null,
        required: true,
        description:
          'Source defining evaluate(app_params, inputs, output, correct_answer) (version 1; version 2: evaluate(inputs, output, trace)), which returns a number (a bool counts as 1 or 0 in Python), e.g. ' +
          '"def evaluate(app_params, inputs, output, correct_answer):\\n    return 1.0 if output == correct_answer else 0.0" in Python or ' +
          '"function evaluate(app_params, inputs, output, correct_answer) { return output === correct_answer ? 1 : 0; }" in JavaScript. ' +
          'It runs with time and memory limits and without file, network, process or environment access.',
      },
      runtime: {
        label: 'Runtime',
        type: 'multiple_choice',
        default: 'python',
        required: false,
        description:
          'The language of the code: "python" (CPython 3.13 with its standard library, the default for a new config) or "javascript". ' +
          'A config keeps the runtime it was saved with: an update that leaves it out keeps the stored one.',
        options: ['python', 'javascript'],
      },
      version: {
        label: 'Version',
        type: 'multiple_choice',
        default: '1',
        required: false,
        description:
          'How evaluate is called, as Agenta names it: "1" (the default) evaluate(app_params, inputs, output, correct_answer); ' +
          '"2" evaluate(inputs, output, trace), where inputs is the whole test case (the expected answer one of its columns) and trace the case\'s spans as a tree. ' +
          'A config keeps the version it was saved with: an update that leaves it out keeps the stored one.',
        options: ['1', '2'],
      },
      correct_answer_key: correctAnswerKey,
    },
    ignored_settings: ['threshold'],
  },
  {
    key: 'auto_webhook_test',
    name: 'Webhook',
    description: 'POSTs {inputs, output, correct_answer} to your URL and uses the number in the "score" field of its JSON reply.',
    result_type: 'number',
    requires_llm_api_keys: false,
    settings_template: {
      webhook_url: {
        label: 'Webhook URL',
        type: 'url',
        default: null,
        required: true,
        description: 'The http(s) address that scores each output; it must answer 2xx with JSON such as {"score": 0.8}.',
      },
      correct_answer_key: correctAnswerKey,
    },
  },
  {
    key: 'auto_starts_with',
    name: 'Starts with',
    description: 'Passes when the output starts with the given prefix.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {
      prefix: { label: 'Prefix', type: 'string', default: null, required: true, description: 'The text the output must start with.' },
      case_sensitive: caseSensitive,
    },
  },
  {
    key: 'auto_ends_with',
    name: 'Ends with',
    description: 'Passes when the output ends with the given suffix.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {
      suffix: { label: 'Suffix', type: 'string', default: null, required: true, description: 'The text the output must end with.' },
      case_sensitive: caseSensitive,
    },
  },
  {
    key: 'auto_contains',
    name: 'Contains',
    description: 'Passes when the output contains the given substring.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: {
      substring: { label: 'Substring', type: 'string', default: null, required: true, description: 'The text the output must contain.' },
      case_sensitive: caseSensitive,
    },
  },
  {
    key: 'auto_contains_any',
    name: 'Contains any',
    description: 'Passes when the output contains at least one of the given substrings.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: { substrings, case_sensitive: caseSensitive },
  },
  {
    key: 'auto_contains_all',
    name: 'Contains all',
    description: 'Passes when the output contains every one of the given substrings.',
    result_type: 'bool',
    requires_llm_api_keys: false,
    settings_template: { substrings, case_sensitive: caseSensitive },
  },
  {
    key: 'auto_levenshtein_distance',
    name: 'Levenshtein distance',
    description:
      'Counts the single-character edits that turn the output into the expected answer; with a threshold set, the result is instead a pass (bool) when that count is at most the threshold.',
    result_type: 'number',
    requires_llm_api_keys: false,
    settings_template: {
      threshold: {
        label: 'Threshold',
        type: 'number',
        default: null,
        required: false,
        description: 'The most edits allowed for a pass. Leave empty to get the distance itself as a number.',
        min: 0,
      },
      correct_answer_key: correctAnswerKey,
    },
  },
  {
    key: 'rag_faithfulness',
    name: 'RAG faithfulness',
    description:
      "Scores from 0 to 1 the share of the answer's claims that the retrieved contexts support, judged by a language model (catches hallucinations).",
    result_type: 'number',
    requires_llm_api_keys: true,
    settings_template: ragKeys('question the answer responds to'),
  },
  {
    key: 'rag_context_relevancy',
    name: 'RAG context relevancy',
    description: 'Scores from 0 to 1 how relevant the retrieved contexts are to the question, judged by a language model (catches poor retrieval).',
    result_type: 'number',
    requires_llm_api_keys: true,
    settings_template: ragKeys('question the contexts were retrieved for'),
  },
];

/** The runtime of a custom code config stored before configs recorded theirs: JavaScript, the only one then. */
export const STORED_RUNTIME_DEFAULT = 'javascript';

/**
 * Settings an update keeps when it leaves them out (rather than taking the default again): for a
 * custom code config, its runtime, so code saved as JavaScript is not run as Python because the
 * default changed, and its version, so version 2 code is not called as version 1. The value applies when the stored config lacks the setting too.
 */
export const keptOnUpdate: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  auto_custom_code_run: { runtime: STORED_RUNTIME_DEFAULT, version: '1' },
};

const evaluatorsByKey = new Map(evaluatorList.map((evaluator) => [evaluator.key, evaluator]));

/** Every built-in evaluator, in the order docs/evaluators.md lists them. */
export function listEvaluators(): readonly Evaluator[] {
  return evaluatorList;
}

/** Agenta's configs of every evaluator may carry the list form of correct_answer_key, which Agenta ignores. */
const ignoredEverywhere = ['correct_answer_keys'] as const;

/** The settings an evaluator's configs may carry and that are stored but ignored. */
export function ignoredSettings(evaluator: Evaluator): readonly string[] {
  return [...ignoredEverywhere, ...(evaluator.ignored_settings ?? [])];
}

/** The built-in evaluator with this key, or undefined. */
export function getEvaluator(key: string): Evaluator | undefined {
  return evaluatorsByKey.get(key);
}

export const evaluatorKeys = evaluatorList.map((evaluator) => evaluator.key) as [string, ...string[]];
