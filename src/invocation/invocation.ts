// Runs one test case through one variant revision (docs/evaluations.md#what-a-variant-is-sent): an
// `endpoint` variant is POSTed `{inputs, parameters}`; a `prompt` variant is run by us against an
// OpenAI-compatible Chat Completions API. Transient failures are retried per the evaluation's rate
// limit.
import type { Dispatcher } from 'undici';
import type { CallCost, PriceList } from '../pricing/prices.js';
import { type ProviderKeys, providerAccess } from '../providers/access.js';
import { type ChatMessage, type ChatRequest, type ChatUsage, chatCompletion, completionText, readUsage } from '../providers/chat.js';
import { EVALUATION_ENVIRONMENT, type SpanRecord } from '../observability/ingestion/span-record.js';
import { postJson } from '../shared/http/client.js';
import { type CallLimits, type CallSignal, callWithRetries } from '../shared/retry.js';
import { result, type Result } from '../evaluators/results.js';
import { appSpanRecords, readAppSpans, type AppSpan } from './app-trace.js';
import { newTraceId, randomId } from './ids.js';

export { randomId };

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
  /**
   * The call's place in its trace, sent to an endpoint as W3C `traceparent`, so an app that
   * exports its own spans puts them beneath the call (docs/evaluations.md#the-apps-own-trace).
   */
  traceparent?: CallSpan;
}

/** The trace and the span id of one variant call, chosen before the call. */
export interface CallSpan {
  traceId: string;
  spanId: string;
}

export function newCallSpan(): CallSpan {
  return { traceId: newTraceId(), spanId: randomId(8) };
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
  /** The spans of the app's own trace, when the endpoint's answer carried one. */
  appSpans: AppSpan[];
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
  appSpans: AppSpan[];
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
    return { output: result('text', text), cost: null, latency: null, usage: null, model: null, appSpans: [] };
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
        appSpans: readAppSpans(answer),
      };
    }
    if ('message' in answer) {
      return {
        output: outputResult(answer.message),
        cost: finiteOrNull(answer.cost),
        latency: finiteOrNull(answer.latency),
        usage: readUsage(answer.usage),
        model: null,
        appSpans: [],
      };
    }
    const completion = completionText(answer);
    if (completion !== undefined) {
      const usage = readUsage(answer.usage);
      const model = typeof answer.model === 'string' ? answer.model : null;
      return { output: result('text', completion), cost: null, latency: null, usage, model, appSpans: [] };
    }
  }
  return { output: outputResult(body), cost: null, latency: null, usage: null, model: null, appSpans: [] };
}

/**
 * `{column}` placeholders, and Langfuse's `{{variable}}` (docs/deployments.md#langfuse), filled from
 * the test case; other braces (JSON examples) and unknown names stay as written.
 */
export function fillTemplate(template: string, testcase: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([^{}\s]+)\s*\}\}|\{([^{}\s]+)\}/g, (whole, double: string | undefined, single: string | undefined) => {
    const name = (double ?? single)!;
    if (!Object.hasOwn(testcase, name)) return whole;
    const value = testcase[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** A prompt's Chat Completions request (its `model` too) with its messages filled from `variables`; other parameters are not sent. */
export function promptRequest(parameters: Record<string, unknown>, variables: Record<string, unknown>): { model: string } & ChatRequest {
  const { model, messages, temperature, max_tokens, top_p, response_format } = parameters as unknown as {
    model: string;
    messages: ChatMessage[];
  } & ChatRequest;
  return {
    model,
    messages: messages.map((m) => ({ role: m.role, content: fillTemplate(m.content, variables) })),
    temperature,
    max_tokens,
    top_p,
    response_format,
  };
}

/** What a variant is sent for a test case: an endpoint's body, or the filled Chat Completions request. */
function requestOf(target: VariantTarget, testcase: Record<string, unknown>): Record<string, unknown> {
  if (target.kind === 'endpoint') return { inputs: testcase, parameters: target.parameters };
  return { ...promptRequest(target.parameters, testcase) };
}

async function callEndpoint(uri: string, request: Record<string, unknown>, signal: CallSignal, options: InvocationOptions): Promise<ReadAnswer> {
  const { traceparent } = options;
  const text = await postJson(uri, request, {
    peer: `The endpoint ${uri}`,
    signal,
    dispatcher: options.dispatcher,
    headers: {
      accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
      // W3C Trace Context, version 00, sampled.
      ...(traceparent && { traceparent: `00-${traceparent.traceId}-${traceparent.spanId}-01` }),
    },
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
  return { output, cost: null, latency: null, usage: reply.usage, model: reply.model, appSpans: [] };
}

/** Calls the variant; throws (TransientError or PermanentError) once its retries are spent. */
export async function invokeVariant(target: VariantTarget, testcase: Record<string, unknown>, options: InvocationOptions): Promise<Invocation> {
  let attempts = 0;
  const request = requestOf(target, testcase);
  const startNs = process.hrtime.bigint();
  const startWallNs = BigInt(Date.now()) * 1_000_000n;
  const answer = await callWithRetries(options, `The call took longer than ${options.timeoutMs / 1000} s and was stopped`, (signal, attempt) => {
    attempts = attempt;
    return target.kind === 'endpoint' ? callEndpoint(target.uri!, request, signal, options) : callPrompt(request, options, signal);
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

/** What a trace of one variant call records beside the call itself. */
export interface InvocationSpanOptions {
  /** The call's trace and span id, as sent in `traceparent`. */
  call: CallSpan;
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

/**
 * The spans of one variant call, stored like ingested ones (docs/evaluations.md: each invocation is
 * traced): the call's own span, then the app's spans its answer carried, beneath it.
 */
export function invocationSpans(options: InvocationSpanOptions): [SpanRecord, ...SpanRecord[]] {
  const span = invocationSpan(options);
  return [span, ...appSpanRecords(span, options.invocation?.appSpans ?? [])];
}

function invocationSpan(options: InvocationSpanOptions): SpanRecord {
  const { invocation, output } = options;
  const error = 'error' in output ? output.error : null;
  return {
    traceId: options.call.traceId,
    spanId: options.call.spanId,
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
