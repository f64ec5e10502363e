// The attribute rules of OTLP span mapping (docs/instrumentation.md#what-assay-reads): per
// convention or library, which attribute fills which field of the Span, and how it is read. The
// engine (span-mapping.ts) applies them; a library is supported by adding rules here, not code.
// Precedence: for a field, the first rule (in this file's order) whose attribute is set and reads
// as a value wins; span attributes before resource attributes.
import type { SpanKind } from '../span-record.js';

/** The fields a rule can fill (span-mapping.ts says how each lands in the SpanRecord). */
export type Field =
  | 'kind'
  | 'model'
  | 'requestModel'
  | 'provider'
  | 'promptTokens'
  | 'completionTokens'
  | 'totalTokens'
  | 'cachedTokens'
  /** An object of token counts (read by `read`), used for the counts no single-count rule gave. */
  | 'usage'
  | 'cost'
  | 'config'
  | 'input'
  | 'output'
  | 'system'
  | 'tools'
  | 'promptTemplate'
  | 'toolName'
  | 'toolDescription'
  | 'toolCallId'
  | 'toolType'
  | 'metadata'
  | 'tags'
  | 'finishReasons'
  | 'responseId'
  | 'sessionId'
  | 'userId'
  | 'environment'
  | 'release'
  | 'version'
  | 'appId'
  | 'variantId'
  | 'variantName'
  | 'variantRevision'
  /** A severity (Langfuse's level): ERROR makes an unset status ERROR. */
  | 'level'
  | 'statusMessage';

/**
 * How a value is read (span-mapping.ts `readers`). Without `read`, a field's own default: text for
 * names and ids, a count for tokens, an amount for cost, the value itself for the rest.
 */
export type Read =
  | 'text'
  | 'count'
  | 'amount'
  | 'json'
  /** A JSON object merged into the field (config, metadata). */
  | 'object'
  /** A list of chat messages as JSON text (OTel GenAI `parts` or OpenAI/AI SDK/Langfuse messages). */
  | 'messages'
  /** Flattened `prefix.{i}.message.*` items (OpenInference). */
  | 'openinference-messages'
  /** Flattened `prefix.{i}.*` messages (older GenAI `gen_ai.prompt.{i}.role`). */
  | 'indexed-messages'
  /** GenAI message events of the span (the rule's key is `@events`). */
  | 'event-messages'
  /** `input.value`/`output.value`: a JSON object as is, a list of messages as messages, else `{input|output: value}`. */
  | 'value'
  /** Langfuse's `input`/`output`: chat messages as a conversation, anything else like `value`. */
  | 'langfuse-io'
  /** OpenLLMetry's `traceloop.entity.input`/`output`: a function's `{args, kwargs}` and result, like `langfuse-io`. */
  | 'traceloop-io'
  /** AI SDK's `ai.prompt`: `{system?, prompt?, messages?}` as a conversation. */
  | 'ai-prompt'
  /** AI SDK's `ai.response.text` and `ai.response.toolCalls` as one assistant message. */
  | 'ai-response'
  /** A list of texts (JSON strings each, as AI SDK's `ai.values`) as `{texts}`. */
  | 'texts'
  /** Vectors (JSON text each, as AI SDK's `ai.embeddings`) as `{embeddings}`. */
  | 'embeddings'
  /** Tool call arguments as `{arguments}`. */
  | 'arguments'
  /** Tool call result as `{result}`. */
  | 'result'
  /** Flattened documents `prefix.{i}.document.*` as `{documents}`. */
  | 'documents'
  /** Flattened embeddings `prefix.{i}.embedding.text` as `{texts}`. */
  | 'embedding-texts'
  /** Reranker input: `{query, documents}`. */
  | 'rerank-input'
  /** A list (JSON text), each item JSON text or a value. */
  | 'json-list'
  /** Flattened OpenInference tools `llm.tools.{i}.tool.*`. */
  | 'openinference-tools'
  /** Flattened prompt template `llm.prompt_template.*`. */
  | 'prompt-template'
  /** Langfuse `usage_details` / AI SDK `ai.usage` objects: `{input, output, total, …}` counts. */
  | 'usage-object'
  /** Langfuse `cost_details`: its `total`, else the sum of its parts. */
  | 'cost-object';

/** The reader of a rule without `read`, where it is not text. */
export const defaultReads: Partial<Record<Field, Read>> = {
  promptTokens: 'count',
  completionTokens: 'count',
  totalTokens: 'count',
  cachedTokens: 'count',
  cost: 'amount',
  tools: 'json-list',
  tags: 'json',
  finishReasons: 'json',
  metadata: 'json',
  config: 'json',
  input: 'value',
  output: 'value',
};

export interface Rule {
  /** An attribute key; `prefix.*` for every key under `prefix.`; `@events` for the span's events. */
  key: string;
  field: Field;
  read?: Read;
  /** Also read from the resource's attributes (after every span attribute). */
  resource?: true;
  /** kind: the lower-cased value → the span kind; `*` for any other value. */
  kinds?: Readonly<Record<string, SpanKind>>;
  /**
   * kind: the values (lower-cased) that mark a span whose usage and cost repeat its descendants'
   * (an agent or workflow around model calls): they are not counted again (docs/instrumentation.md#roll-ups).
   */
  rollUp?: readonly string[];
  /** Only on spans of this kind. */
  only?: SpanKind;
}

export interface Convention {
  /** The section of docs/instrumentation.md this convention belongs to. */
  name: string;
  rules: readonly Rule[];
}

const upperKinds = (kinds: readonly SpanKind[]) => Object.fromEntries(kinds.map((kind) => [kind.toLowerCase(), kind])) as Record<string, SpanKind>;
const allKinds: SpanKind[] = ['LLM', 'CHAIN', 'TOOL', 'RETRIEVER', 'EMBEDDING', 'AGENT', 'WORKFLOW', 'RERANKER', 'GUARDRAIL', 'EVALUATOR'];

export const openInference: Convention = {
  name: 'OpenInference',
  rules: [
    {
      key: 'openinference.span.kind',
      field: 'kind',
      kinds: { ...upperKinds(allKinds), prompt: 'CHAIN', unknown: 'UNKNOWN' },
      // OpenInference puts usage on LLM spans; an agent span that reports some repeats its calls'.
      rollUp: ['agent'],
    },
    { key: 'llm.model_name', field: 'requestModel' },
    { key: 'embedding.model_name', field: 'requestModel' },
    { key: 'llm.provider', field: 'provider' },
    { key: 'llm.system', field: 'provider' },
    { key: 'llm.token_count.prompt', field: 'promptTokens' },
    { key: 'llm.token_count.completion', field: 'completionTokens' },
    { key: 'llm.token_count.total', field: 'totalTokens' },
    { key: 'llm.token_count.prompt_details.cache_read', field: 'cachedTokens' },
    { key: 'llm.cost.total', field: 'cost' },
    { key: 'llm.input_messages.*', field: 'input', read: 'openinference-messages' },
    // An embedding's texts before its `input.value` (the same text, or their JSON list).
    { key: 'embedding.embeddings.*', field: 'input', read: 'embedding-texts' },
    { key: 'llm.output_messages.*', field: 'output', read: 'openinference-messages' },
    { key: 'retrieval.documents.*', field: 'output', read: 'documents' },
    { key: 'reranker.output_documents.*', field: 'output', read: 'documents' },
    { key: 'llm.tools.*', field: 'tools', read: 'openinference-tools' },
    { key: 'tool.name', field: 'toolName' },
    { key: 'tool.description', field: 'toolDescription' },
    { key: 'tool.id', field: 'toolCallId' },
    { key: 'metadata', field: 'metadata', read: 'json' },
    { key: 'tag.tags', field: 'tags', read: 'json' },
  ],
};

export const langfuse: Convention = {
  name: 'Langfuse',
  rules: [
    {
      key: 'langfuse.observation.type',
      field: 'kind',
      kinds: {
        generation: 'LLM',
        embedding: 'EMBEDDING',
        agent: 'AGENT',
        tool: 'TOOL',
        chain: 'CHAIN',
        retriever: 'RETRIEVER',
        evaluator: 'EVALUATOR',
        guardrail: 'GUARDRAIL',
        span: 'CHAIN',
        event: 'UNKNOWN',
      },
      rollUp: ['agent', 'chain', 'span'],
    },
    { key: 'langfuse.observation.model.name', field: 'requestModel' },
    { key: 'langfuse.observation.model.parameters', field: 'config', read: 'object' },
    { key: 'langfuse.observation.usage_details', field: 'usage', read: 'usage-object' },
    { key: 'langfuse.observation.cost_details', field: 'cost', read: 'cost-object' },
    { key: 'langfuse.observation.input', field: 'input', read: 'langfuse-io' },
    { key: 'langfuse.observation.output', field: 'output', read: 'langfuse-io' },
    { key: 'langfuse.observation.level', field: 'level' },
    { key: 'langfuse.observation.status_message', field: 'statusMessage' },
    { key: 'langfuse.observation.metadata.*', field: 'metadata' },
    { key: 'langfuse.observation.metadata', field: 'metadata', read: 'object' },
    { key: 'langfuse.trace.metadata.*', field: 'metadata' },
    { key: 'langfuse.trace.metadata', field: 'metadata', read: 'object' },
    { key: 'langfuse.trace.tags', field: 'tags', read: 'json' },
    { key: 'langfuse.trace.input', field: 'input', read: 'langfuse-io' },
    { key: 'langfuse.trace.output', field: 'output', read: 'langfuse-io' },
    { key: 'langfuse.session.id', field: 'sessionId', resource: true },
    { key: 'langfuse.user.id', field: 'userId', resource: true },
    { key: 'langfuse.environment', field: 'environment', resource: true },
    { key: 'langfuse.release', field: 'release', resource: true },
    { key: 'langfuse.version', field: 'version', resource: true },
    // The prompt a generation was given (its name and version): the variant revision it links to
    // (docs/observability.md#traces-of-a-revision).
    { key: 'langfuse.observation.prompt.name', field: 'variantName' },
    { key: 'langfuse.observation.prompt.version', field: 'variantRevision' },
  ],
};

const agentaKinds: Record<string, SpanKind> = {
  ...upperKinds(allKinds),
  workflow: 'WORKFLOW',
  task: 'CHAIN',
  query: 'RETRIEVER',
  completion: 'LLM',
  chat: 'LLM',
  rerank: 'RERANKER',
};

export const agenta: Convention = {
  name: 'Agenta',
  rules: [
    { key: 'ag.type.node', field: 'kind', kinds: agentaKinds },
    // `ag.type` may also be the object `{node}`: the kind reader takes its `node`.
    { key: 'ag.type', field: 'kind', kinds: agentaKinds },
    { key: 'ag.metrics.unit.costs.total', field: 'cost' },
    { key: 'ag.session.id', field: 'sessionId', resource: true },
    { key: 'ag.user.id', field: 'userId', resource: true },
    { key: 'ag.environment', field: 'environment', resource: true },
    { key: 'ag.refs.environment.slug', field: 'environment', resource: true },
    // Agenta's references name an app and variant by id or slug: either is kept, and apps resolves
    // both to a revision (docs/observability.md#traces-of-a-revision).
    { key: 'ag.refs.application.id', field: 'appId', resource: true },
    { key: 'ag.refs.application.slug', field: 'appId', resource: true },
    { key: 'ag.refs.variant.id', field: 'variantId', resource: true },
    { key: 'ag.refs.variant.slug', field: 'variantName', resource: true },
    { key: 'ag.refs.variant.version', field: 'variantRevision', resource: true },
  ],
};

const aiSdkOperations = ['ai.generatetext', 'ai.streamtext', 'ai.generateobject', 'ai.streamobject'];

export const aiSdk: Convention = {
  name: 'Vercel AI SDK',
  rules: [
    {
      key: 'ai.operationId',
      field: 'kind',
      kinds: {
        ...Object.fromEntries(aiSdkOperations.map((operation) => [operation, 'AGENT' as const])),
        ...Object.fromEntries(
          aiSdkOperations.flatMap((operation) => [`${operation}.dogenerate`, `${operation}.dostream`].map((step) => [step, 'LLM' as const])),
        ),
        'ai.toolcall': 'TOOL',
        'ai.embed': 'EMBEDDING',
        'ai.embedmany': 'EMBEDDING',
        'ai.embed.doembed': 'EMBEDDING',
        'ai.embedmany.doembed': 'EMBEDDING',
        'ai.rerank': 'RERANKER',
        'ai.rerank.dorerank': 'RERANKER',
      },
      rollUp: [...aiSdkOperations, 'ai.embed', 'ai.embedmany', 'ai.rerank'],
    },
    { key: 'ai.response.model', field: 'model' },
    { key: 'ai.model.id', field: 'requestModel' },
    { key: 'ai.model.provider', field: 'provider' },
    { key: 'ai.usage.inputTokens', field: 'promptTokens' },
    { key: 'ai.usage.promptTokens', field: 'promptTokens' },
    { key: 'ai.usage.tokens', field: 'promptTokens' },
    { key: 'ai.usage.outputTokens', field: 'completionTokens' },
    { key: 'ai.usage.completionTokens', field: 'completionTokens' },
    { key: 'ai.usage.totalTokens', field: 'totalTokens' },
    { key: 'ai.usage.cachedInputTokens', field: 'cachedTokens' },
    { key: 'ai.usage.inputTokenDetails.cacheReadTokens', field: 'cachedTokens' },
    { key: 'ai.settings.*', field: 'config' },
    { key: 'ai.prompt.messages', field: 'input', read: 'messages' },
    { key: 'ai.prompt', field: 'input', read: 'ai-prompt' },
    { key: 'ai.values', field: 'input', read: 'texts' },
    { key: 'ai.value', field: 'input', read: 'texts' },
    { key: 'ai.toolCall.args', field: 'input', read: 'arguments' },
    { key: 'ai.toolCall.input', field: 'input', read: 'arguments' },
    { key: 'ai.response.text', field: 'output', read: 'ai-response' },
    { key: 'ai.response.toolCalls', field: 'output', read: 'ai-response' },
    { key: 'ai.response.object', field: 'output', read: 'value' },
    { key: 'ai.embeddings', field: 'output', read: 'embeddings' },
    { key: 'ai.embedding', field: 'output', read: 'embeddings' },
    { key: 'ai.toolCall.result', field: 'output', read: 'result' },
    { key: 'ai.toolCall.output', field: 'output', read: 'result' },
    { key: 'ai.prompt.tools', field: 'tools', read: 'json-list' },
    { key: 'ai.toolCall.name', field: 'toolName' },
    { key: 'ai.toolCall.id', field: 'toolCallId' },
    { key: 'ai.response.finishReason', field: 'finishReasons' },
    { key: 'ai.response.id', field: 'responseId' },
    { key: 'ai.telemetry.metadata.*', field: 'metadata' },
    // The metadata keys Langfuse reads as the session and user: apps already send them.
    { key: 'ai.telemetry.metadata.sessionId', field: 'sessionId' },
    { key: 'ai.telemetry.metadata.userId', field: 'userId' },
  ],
};

export const genAi: Convention = {
  name: 'OpenTelemetry GenAI',
  rules: [
    {
      key: 'gen_ai.operation.name',
      field: 'kind',
      kinds: {
        chat: 'LLM',
        text_completion: 'LLM',
        generate_content: 'LLM',
        completion: 'LLM',
        embeddings: 'EMBEDDING',
        embedding: 'EMBEDDING',
        execute_tool: 'TOOL',
        create_agent: 'AGENT',
        invoke_agent: 'AGENT',
        agent_step: 'CHAIN',
        invoke_workflow: 'WORKFLOW',
        retrieval: 'RETRIEVER',
        retrieve: 'RETRIEVER',
        rerank: 'RERANKER',
        guardrail: 'GUARDRAIL',
        evaluate: 'EVALUATOR',
      },
      rollUp: ['invoke_agent', 'create_agent', 'agent_step', 'invoke_workflow'],
    },
    { key: 'gen_ai.response.model', field: 'model' },
    { key: 'llm.response.model', field: 'model' },
    { key: 'gen_ai.request.model', field: 'requestModel' },
    { key: 'gen_ai.provider.name', field: 'provider' },
    { key: 'gen_ai.system', field: 'provider' },
    { key: 'gen_ai.usage.input_tokens', field: 'promptTokens' },
    { key: 'gen_ai.usage.prompt_tokens', field: 'promptTokens' },
    { key: 'llm.usage.prompt_tokens', field: 'promptTokens' },
    { key: 'gen_ai.usage.output_tokens', field: 'completionTokens' },
    { key: 'gen_ai.usage.completion_tokens', field: 'completionTokens' },
    { key: 'llm.usage.completion_tokens', field: 'completionTokens' },
    { key: 'gen_ai.usage.total_tokens', field: 'totalTokens' },
    { key: 'llm.usage.total_tokens', field: 'totalTokens' },
    { key: 'gen_ai.usage.cache_read.input_tokens', field: 'cachedTokens' },
    { key: 'gen_ai.usage.cache_read_input_tokens', field: 'cachedTokens' },
    { key: 'gen_ai.usage.cost', field: 'cost' },
    { key: 'gen_ai.request.*', field: 'config' },
    { key: 'gen_ai.input.messages', field: 'input', read: 'messages' },
    { key: 'gen_ai.prompt.*', field: 'input', read: 'indexed-messages' },
    { key: 'gen_ai.output.messages', field: 'output', read: 'messages' },
    { key: 'gen_ai.completion.*', field: 'output', read: 'indexed-messages' },
    { key: 'gen_ai.system_instructions', field: 'system', read: 'json' },
    { key: 'gen_ai.tool.definitions', field: 'tools', read: 'json-list' },
    { key: 'gen_ai.tool.name', field: 'toolName' },
    { key: 'gen_ai.tool.description', field: 'toolDescription' },
    { key: 'gen_ai.tool.call.id', field: 'toolCallId' },
    { key: 'gen_ai.tool.type', field: 'toolType' },
    { key: 'gen_ai.response.finish_reasons', field: 'finishReasons' },
    { key: 'gen_ai.response.id', field: 'responseId' },
    { key: 'gen_ai.conversation.id', field: 'sessionId', resource: true },
  ],
};

/** What several conventions share, read after each convention's own forms. */
export const common: Convention = {
  name: 'Common attributes',
  rules: [
    { key: '@events', field: 'input', read: 'event-messages' },
    { key: '@events', field: 'output', read: 'event-messages' },
    { key: 'input.value', field: 'input', read: 'value' },
    { key: 'output.value', field: 'output', read: 'value' },
    { key: 'gen_ai.tool.call.arguments', field: 'input', read: 'arguments' },
    { key: 'tool.parameters', field: 'input', read: 'arguments', only: 'TOOL' },
    { key: 'gen_ai.tool.call.result', field: 'output', read: 'result' },
    { key: 'reranker.input_documents.*', field: 'input', read: 'rerank-input' },
    { key: 'llm.invocation_parameters', field: 'config', read: 'object' },
    { key: 'llm.prompt_template.*', field: 'promptTemplate', read: 'prompt-template' },
    { key: 'user.id', field: 'userId', resource: true },
    { key: 'enduser.id', field: 'userId', resource: true },
    { key: 'session.id', field: 'sessionId', resource: true },
    { key: 'deployment.environment.name', field: 'environment', resource: true },
    { key: 'deployment.environment', field: 'environment', resource: true },
    { key: 'environment', field: 'environment', resource: true },
    { key: 'assay.app.id', field: 'appId', resource: true },
    { key: 'app.id', field: 'appId', resource: true },
    { key: 'assay.variant.id', field: 'variantId', resource: true },
    { key: 'variant.id', field: 'variantId', resource: true },
    { key: 'assay.variant.name', field: 'variantName', resource: true },
    { key: 'variant.name', field: 'variantName', resource: true },
    { key: 'assay.variant.revision', field: 'variantRevision', resource: true },
    { key: 'variant.revision', field: 'variantRevision', resource: true },
  ],
};

export const traceloop: Convention = {
  name: 'OpenLLMetry',
  rules: [
    {
      key: 'traceloop.span.kind',
      field: 'kind',
      kinds: { workflow: 'WORKFLOW', task: 'CHAIN', agent: 'AGENT', tool: 'TOOL' },
      rollUp: ['workflow', 'agent'],
    },
    { key: 'traceloop.entity.input', field: 'input', read: 'traceloop-io' },
    { key: 'traceloop.entity.output', field: 'output', read: 'traceloop-io' },
    // Association properties are whatever the app names: these are the user and session of its docs.
    { key: 'traceloop.association.properties.user_id', field: 'userId' },
    { key: 'traceloop.association.properties.userId', field: 'userId' },
    { key: 'traceloop.association.properties.session_id', field: 'sessionId' },
    { key: 'traceloop.association.properties.sessionId', field: 'sessionId' },
    { key: 'traceloop.association.properties.*', field: 'metadata' },
  ],
};

/** The last resort for a span's kind: a model call's traces without a kind of their own. */
export const fallback: Convention = {
  name: 'Fallbacks',
  rules: [
    { key: 'llm.request.type', field: 'kind', kinds: { embedding: 'EMBEDDING', '*': 'LLM' } },
    { key: 'gen_ai.operation.name', field: 'kind', kinds: { '*': 'LLM' } },
    { key: 'gen_ai.request.model', field: 'kind', kinds: { '*': 'LLM' } },
    { key: 'gen_ai.system', field: 'kind', kinds: { '*': 'LLM' } },
    { key: 'llm.model_name', field: 'kind', kinds: { '*': 'LLM' } },
  ],
};

/** Every convention, in precedence order. */
export const conventions: readonly Convention[] = [openInference, langfuse, agenta, aiSdk, genAi, traceloop, common, fallback];
