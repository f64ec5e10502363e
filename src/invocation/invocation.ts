// Runs one test case through one variant revision (docs/evaluations.md#what-a-variant-is-sent): an
// `endpoint` variant is POSTed `{inputs, parameters}`; a `prompt` variant is run by us against an
// OpenAI-compatible Chat Completions API. Transient failures are retried per the evaluation's rate
// limit.
import type { Dispatcher } from 'undici';
import { randomBytes } from 'node:crypto';
import type { CallCost, PriceList } from '../pricing/prices.js';
import { type ProviderKeys, providerAccess } from '../providers/access.js';
import { type ChatRequest, type ChatUsage, chatCompletion, completionText, readUsage } from '../providers/chat.js';
import { EVALUATION_ENVIRONMENT, type SpanRecord } from '../observability/ingest.js';
import { postJson } from '../shared/http/client.js';
import { type CallLimits, type CallSignal, callWithRetries } from '../shared/retry.js';
import { result, type Result } from '../evaluators/results.js';

export interface VariantTarget {
  kind: 'endpoint' | 'prompt';
  uri: string | null;
  parameters: Record<string, unknown>;
}

export interface InvocationOptions extends CallLimits {
  /** The project's prices, which cost a call whose answer gives usage but no cost (docs/costs.md). */
  prices: PriceList;
  providerKeys: ProviderKeys | null;
  providerEnv: Record<string, string>;
  /** The service's outbound dispatcher (`Services.outbound`). */
  dispatcher: Dispatcher;
}

/** What a call gave: its output as a text or json Result, with cost (USD) and latency (s). */
export interface Invocation {
  output: Result;
  /** As the endpoint reported it, else computed from the usage and the project's prices; null when unknown. */
  cost: CallCost | null;
  latency: number;
  usage: ChatUsage | null;
  model: string | null;
  /** What was sent (an endpoint's body, or the filled Chat Completions request), for the trace. */
  sent: unknown;
  startNs: bigint;
  endNs: bigint;
  attempts: number;
}

function outputResult(value: unknown): Result {
  return typeof value === 'string' ? result('text', value) : result('json', value ?? null);
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

interface ReadAnswer {
  output: Result;
  /** The cost the answer reported (USD), if any. */
  cost: number | null;
  latency: number | null;
  usage: ChatUsage | null;
  model: string | null;
}

/**
 * The answer forms an endpoint may give (docs/evaluations.md#what-a-variant-is-sent): Agenta v2 `{data, trace:{cost,latency,usage}}`,
 * `{message, cost, latency}`, an OpenAI chat completion, any other JSON (the output is that JSON),
 * or plain text.
 */
export function readEndpointAnswer(text: string): ReadAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { output: result('text', text), cost: null, latency: null, usage: null, model: null };
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const answer = body as Record<string, unknown>;
    // Agenta's SDK sends `trace: null` when tracing is off: still its answer form.
    if ('data' in answer && (answer.trace === undefined || typeof answer.trace === 'object')) {
      const trace = (answer.trace ?? {}) as Record<string, unknown>;
      return {
        output: outputResult(answer.data),
        cost: finiteOrNull(trace.cost),
        latency: finiteOrNull(trace.latency),
        usage: readUsage(trace.usage),
        model: null,
      };
    }
    if ('message' in answer) {
      return {
        output: outputResult(answer.message),
        cost: finiteOrNull(answer.cost),
        latency: finiteOrNull(answer.latency),
        usage: readUsage(answer.usage),
        model: null,
      };
    }
    const completion = completionText(answer);
    if (completion !== undefined) {
      const usage = readUsage(answer.usage);
      const model = typeof answer.model === 'string' ? answer.model : null;
      return { output: result('text', completion), cost: null, latency: null, usage, model };
    }
  }
  return { output: outputResult(body), cost: null, latency: null, usage: null, model: null };
}

/** `{column}` placeholders filled from the test case; other braces (JSON examples) stay as written. */
export function fillTemplate(template: string, testcase: Record<string, unknown>): string {
  return template.replace(/\{([^{}\s]+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(testcase, name)) return whole;
    const value = testcase[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** What a variant is sent for a test case: an endpoint's body, or the filled Chat Completions request. */
function requestOf(target: VariantTarget, testcase: Record<string, unknown>): Record<string, unknown> {
  if (target.kind === 'endpoint') return { inputs: testcase, parameters: target.parameters };
  const { model, messages, temperature, max_tokens, top_p, response_format } = target.parameters as {
    model: string;
    messages: { role: string; content: string }[];
    temperature?: number;
    max_tokens?: number;
    top_p?: number;
    response_format?: Record<string, unknown>;
  };
  return {
    model,
    messages: messages.map((m) => ({ role: m.role, content: fillTemplate(m.content, testcase) })),
    temperature,
    max_tokens,
    top_p,
    response_format,
  };
}

async function callEndpoint(uri: string, request: Record<string, unknown>, signal: CallSignal, dispatcher: Dispatcher): Promise<ReadAnswer> {
  const text = await postJson(uri, request, {
    peer: `The endpoint ${uri}`,
    signal,
    dispatcher,
    headers: { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' },
  });
  return readEndpointAnswer(text);
}

async function callPrompt(request: Record<string, unknown>, options: InvocationOptions, signal: CallSignal): Promise<ReadAnswer> {
  const { model, ...chat } = request as unknown as { model: string } & ChatRequest;
  const access = providerAccess(model, options.providerKeys, options.providerEnv);
  const reply = await chatCompletion(access, chat, signal, options.dispatcher);
  let output = result('text', reply.content);
  if (chat.response_format && /json/.test(String(chat.response_format.type))) {
    try {
      output = result('json', JSON.parse(reply.content));
    } catch {
      // The model did not keep to JSON: its text is the output.
    }
  }
  return { output, cost: null, latency: null, usage: reply.usage, model: reply.model };
}

/** Calls the variant; throws (TransientError or PermanentError) once its retries are spent. */
export async function invokeVariant(target: VariantTarget, testcase: Record<string, unknown>, options: InvocationOptions): Promise<Invocation> {
  let attempts = 0;
  const request = requestOf(target, testcase);
  const startNs = process.hrtime.bigint();
  const startWallNs = BigInt(Date.now()) * 1_000_000n;
  const answer = await callWithRetries(options, `The call took longer than ${options.timeoutMs / 1000} s and was stopped`, (signal, attempt) => {
    attempts = attempt;
    return target.kind === 'endpoint' ? callEndpoint(target.uri!, request, signal, options.dispatcher) : callPrompt(request, options, signal);
  });
  const elapsedNs = process.hrtime.bigint() - startNs;
  return {
    ...answer,
    cost: options.prices.callCost(answer.cost, answer.model, answer.usage, new Date(Number(startWallNs / 1_000_000n))),
    latency: answer.latency ?? Number(elapsedNs) / 1e9,
    sent: request,
    startNs: startWallNs,
    endNs: startWallNs + elapsedNs,
    attempts,
  };
}

/**
 * Random bytes drawn a few KB at a time: one randomBytes call per id cost more than the id's other
 * work. A pool of the process, not a service's state (docs/architecture.md#state-lives-in-services):
 * nothing in it belongs to a service.
 */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;

/** A random trace or span id in OTLP's form (lower-case hex). */
export function randomId(bytes: 16 | 8): string {
  if (idPoolOffset + bytes > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idPoolOffset = 0;
  }
  idPoolOffset += bytes;
  return idPool.toString('hex', idPoolOffset - bytes, idPoolOffset);
}

/**
 * The trace id of a call Assay makes: the time in milliseconds (6 bytes), then 10 random bytes,
 * as AWS X-Ray's ids lead with the time. Ids that grow with time land at the end of the trace
 * indexes instead of on a random page each, which made storing a batch of cases write a fraction
 * of the pages. W3C Trace Context asks only that the last 7 bytes be random.
 */
export function newTraceId(): string {
  return Date.now().toString(16).padStart(12, '0') + randomId(16).slice(12);
}

/** What a trace of one variant call records beside the call itself. */
export interface InvocationSpanOptions {
  traceId: string;
  /** When the case began: the span's start when the call never got going. */
  startedNs: bigint;
  invocation: Invocation | null;
  target: VariantTarget;
  /** What the call was for, recorded when no request was sent. */
  testcase: Record<string, unknown>;
  /** The output, or why there is none. */
  output: { value: unknown } | { error: string };
  appId: string;
  variant: { id: string; name: string; revision: number };
  attributes: SpanRecord['attributes'];
}

/** The span of one variant call, stored like an ingested one (docs/evaluations.md: each invocation is traced). */
export function invocationSpan(options: InvocationSpanOptions): SpanRecord {
  const { invocation, output } = options;
  const error = 'error' in output ? output.error : null;
  return {
    traceId: options.traceId,
    spanId: randomId(8),
    parentSpanId: null,
    name: options.variant.name,
    spanKind: options.target.kind === 'prompt' ? 'LLM' : 'CHAIN',
    statusCode: error === null ? 'OK' : 'ERROR',
    statusMessage: error,
    startTimeUnixNano: invocation?.startNs ?? options.startedNs,
    endTimeUnixNano: invocation?.endNs ?? BigInt(Date.now()) * 1_000_000n,
    inputs: (invocation?.sent ?? { inputs: options.testcase }) as SpanRecord['inputs'],
    outputs: 'value' in output ? ({ output: output.value } as SpanRecord['outputs']) : null,
    config: options.target.parameters as SpanRecord['config'],
    // Marks Assay's own call, which trace searches leave out by default (docs/observability.md#assays-own-calls).
    environment: EVALUATION_ENVIRONMENT,
    appId: options.appId,
    variantId: options.variant.id,
    variantName: options.variant.name,
    variantRevision: options.variant.revision,
    model: invocation?.model ?? null,
    promptTokens: invocation?.usage?.prompt_tokens ?? null,
    completionTokens: invocation?.usage?.completion_tokens ?? null,
    totalTokens: invocation?.usage?.total_tokens ?? null,
    cost: invocation?.cost?.cost ?? null,
    costSource: invocation?.cost?.source ?? null,
    cachedTokens: invocation?.usage?.cached_tokens ?? null,
    attributes: { ...options.attributes, 'assay.attempts': invocation?.attempts ?? null },
  };
}
