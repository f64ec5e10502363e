// What one attribute rule reads (docs/observability.md#from-attributes-to-the-span): a rule's hit on
// an attribute key turned into the value of its field, by the rule's `read` (or its field's default).
import type { JsonValue, SpanKind } from '../span-record.js';
import { amount, count, isObject, parsed, type Attrs } from './attribute-values.js';
import type { OtlpSpan } from './decoded-span.js';
import { defaultReads, type Rule } from './mapping-rules.js';
import {
  aiPromptContent,
  aiResponseContent,
  documentsContent,
  embeddingTexts,
  embeddingsContent,
  eventMessages,
  indexedMessages,
  jsonList,
  langfuseContent,
  messagesContent,
  openInferenceMessages,
  openInferenceTools,
  promptTemplate,
  rerankInput,
  textsContent,
  traceloopContent,
  valueContent,
} from './span-content.js';

/** A rule compiled into the key index (rule-matching.ts). */
export interface Slot {
  rule: Rule;
  /** The rule's field as an index of `Matches`. */
  field: number;
  /** The rule's place in precedence order (lower wins). */
  priority: number;
  /** The attribute key, or the prefix (without `.*`) of a prefix rule. */
  key: string;
  prefix: boolean;
}

export interface Hit {
  slot: Slot;
  /** The attribute key that matched (for a prefix rule, the full key). */
  key: string;
}

const textValue = (value: JsonValue | undefined): string | null =>
  value === undefined || value === null || value === ''
    ? null
    : typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);

export interface UsageObject {
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  cachedTokens: number | null;
}

function usageObject(value: JsonValue): UsageObject | undefined {
  const usage = parsed(value);
  if (!isObject(usage)) return undefined;
  const read = (keys: string[]) => count(usage, keys);
  const result = {
    promptTokens: read(['input', 'prompt_tokens', 'promptTokens', 'inputTokens', 'input_tokens']),
    completionTokens: read(['output', 'completion_tokens', 'completionTokens', 'outputTokens', 'output_tokens']),
    totalTokens: read(['total', 'total_tokens', 'totalTokens']),
    cachedTokens: read(['input_cached_tokens', 'cache_read_input_tokens', 'input_cache_read', 'cachedInputTokens', 'cached_tokens']),
  };
  return Object.values(result).some((item) => item !== null) ? result : undefined;
}

function costObject(value: JsonValue): number | null {
  const costs = parsed(value);
  if (!isObject(costs)) return amount({ value: costs ?? null }, ['value']);
  const total = amount(costs, ['total']);
  if (total !== null) return total;
  let sum: number | null = null;
  for (const key in costs) {
    const part = amount(costs, [key]);
    if (part !== null) sum = (sum ?? 0) + part;
  }
  return sum;
}

export interface KindHit {
  kind: SpanKind;
  rollUp: boolean;
}

export function kindOf(rule: Rule, value: JsonValue): KindHit | undefined {
  const name = isObject(value) ? value.node : value;
  if (typeof name !== 'string') return undefined;
  const lower = name.toLowerCase();
  const kind = rule.kinds?.[lower] ?? rule.kinds?.['*'];
  return kind ? { kind, rollUp: rule.rollUp?.includes(lower) ?? false } : undefined;
}

/** What one rule reads from the attributes; undefined when it gives nothing. */
export function read(hit: Hit, attrs: Attrs, span: OtlpSpan | null): unknown {
  const { rule, key: ruleKey, prefix } = hit.slot;
  const value = attrs[hit.key];
  if (!prefix && ruleKey !== '@events' && (value === undefined || value === null || value === '')) return undefined;
  const field = rule.field;
  switch (rule.read ?? defaultReads[field] ?? 'text') {
    case 'text':
      return textValue(value) ?? undefined;
    case 'count':
      return count(attrs, [hit.key]) ?? undefined;
    case 'amount':
      return amount(attrs, [hit.key]) ?? undefined;
    case 'json':
      return parsed(value);
    case 'object': {
      const object = parsed(value);
      return isObject(object) ? object : undefined;
    }
    case 'messages':
      return messagesContent(value);
    case 'openinference-messages':
      return openInferenceMessages(attrs, ruleKey);
    case 'indexed-messages':
      return indexedMessages(attrs, ruleKey);
    case 'event-messages':
      return span ? (field === 'input' ? eventMessages(span.events).input : eventMessages(span.events).output) : undefined;
    case 'value':
      return valueContent(value, field === 'output' ? 'output' : 'input');
    case 'langfuse-io':
      return langfuseContent(attrs, value, field === 'output' ? 'output' : 'input');
    case 'traceloop-io':
      return traceloopContent(attrs, value, field === 'output' ? 'output' : 'input');
    case 'ai-prompt':
      return aiPromptContent(value);
    case 'ai-response':
      return aiResponseContent(attrs);
    case 'texts':
      return textsContent(value);
    case 'embeddings':
      return embeddingsContent(value);
    case 'arguments':
      return { arguments: parsed(value)! };
    case 'result':
      return { result: parsed(value)! };
    case 'documents':
      return documentsContent(attrs, ruleKey);
    case 'embedding-texts':
      return embeddingTexts(attrs, ruleKey);
    case 'rerank-input':
      return rerankInput(attrs, ruleKey);
    case 'json-list':
      return jsonList(value);
    case 'openinference-tools':
      return openInferenceTools(attrs, ruleKey);
    case 'prompt-template':
      return promptTemplate(attrs, ruleKey);
    case 'usage-object':
      return usageObject(value);
    case 'cost-object':
      return costObject(value) ?? undefined;
  }
}
