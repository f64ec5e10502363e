// The attribute tables of docs/instrumentation.md#what-assay-reads, written from the mapping's rule
// tables (src/observability/ingestion/otlp/mapping-rules.ts), so the page says what the code reads.
// `npx tsx scripts/attribute-tables.ts` prints them; a test checks the page holds this very text.
import { pathToFileURL } from 'node:url';
import { conventions, defaultReads, type Field, type Read, type Rule } from '../src/observability/ingestion/otlp/mapping-rules.js';

/** What each field becomes in the Span (docs/observability.md#from-attributes-to-the-span). */
const fieldNames: Record<Field, string> = {
  kind: '`spankind`',
  model: '`model` (response)',
  requestModel: '`model` (request), `config.model`',
  provider: '`config.provider`',
  promptTokens: '`usage.prompt_tokens`',
  completionTokens: '`usage.completion_tokens`',
  totalTokens: '`usage.total_tokens`',
  cachedTokens: 'cached prompt tokens',
  usage: 'usage (prompt, completion, total, cached)',
  cost: '`cost` (reported)',
  config: '`config`',
  input: '`content.inputs`',
  output: '`content.outputs`',
  system: '`content.inputs.system_instructions`',
  tools: '`content.internals.tools`',
  promptTemplate: '`content.internals.prompt_template`',
  toolName: '`content.internals.tool.name`',
  toolDescription: '`content.internals.tool.description`',
  toolCallId: '`content.internals.tool.call_id`',
  toolType: '`content.internals.tool.type`',
  metadata: '`content.internals.metadata`',
  tags: '`content.internals.tags`',
  finishReasons: '`content.internals.finish_reasons`',
  responseId: '`content.internals.response_id`',
  sessionId: '`session_id`',
  userId: '`user_id`',
  environment: '`environment`',
  release: '`content.internals.release`',
  version: '`content.internals.version`',
  appId: 'app id',
  variantId: '`variant.variant_id`',
  variantName: '`variant.variant_name`',
  variantRevision: '`variant.revision`',
  level: '`content.internals.level`; `ERROR` makes the status `ERROR`',
  statusMessage: '`status_message` (when the OTLP status has none)',
};

const readNames: Record<Read, string> = {
  text: 'text',
  count: 'a count',
  amount: 'an amount (USD)',
  json: 'JSON text parsed',
  object: 'a JSON object, merged',
  messages: 'chat messages (JSON)',
  'openinference-messages': 'flattened `{i}.message.*` messages',
  'indexed-messages': 'flattened `{i}.role/content` messages',
  'event-messages': 'GenAI message events',
  value: 'JSON object as is, else `{input/output: value}`',
  'langfuse-io': 'messages as a conversation; a generation’s text as a message; a tool’s as arguments/result',
  'traceloop-io': 'a decorated function’s `{args, kwargs}` as its one argument, its result; a tool’s as arguments/result',
  'ai-prompt': '`{system, prompt, messages}` as messages',
  'ai-response': 'text and tool calls as one assistant message',
  texts: '`{texts}`',
  embeddings: '`{embeddings}`',
  arguments: '`{arguments}`',
  result: '`{result}`',
  documents: 'flattened `{i}.document.*` as `{documents}`',
  'embedding-texts': 'flattened `{i}.embedding.text` as `{texts}`',
  'rerank-input': '`{query, documents}`',
  'json-list': 'a list, items parsed',
  'openinference-tools': 'flattened `{i}.tool.*`',
  'prompt-template': 'flattened template and variables',
  'usage-object': '`{input, output, total, …}` counts',
  'cost-object': '`total`, else the sum of its parts',
};

function readOf(rule: Rule): string {
  if (rule.kinds) {
    const kinds = Object.entries(rule.kinds)
      .map(([value, kind]) => `${value}→${kind}${rule.rollUp?.includes(value) ? ' (roll-up)' : ''}`)
      .join(', ');
    return kinds;
  }
  const prefix = rule.key.endsWith('.*');
  const read =
    prefix && rule.field === 'config'
      ? 'each key under it, dots as `_`'
      : prefix && rule.field === 'metadata'
        ? 'each key under it, JSON text parsed'
        : rule.key === '@events'
          ? readNames['event-messages']
          : readNames[rule.read ?? defaultReads[rule.field] ?? 'text'];
  return [read, rule.only ? `on ${rule.only} spans only` : '', rule.resource ? 'span, then resource' : ''].filter(Boolean).join('; ');
}

/** One table per convention, in precedence order. */
export function attributeTables(): string {
  return conventions
    .map((convention) => {
      const rows = convention.rules.map((rule) => `| \`${rule.key}\` | ${fieldNames[rule.field]} | ${readOf(rule)} |`);
      return [`#### ${convention.name}`, '', '| attribute | fills | how it is read |', '|---|---|---|', ...rows].join('\n');
    })
    .join('\n\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(attributeTables());
