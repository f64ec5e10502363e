// The playground's run of a prompt (docs/playground.md): a prompt variant's revision, an edit of
// it or an unsaved prompt, filled with the given variables and streamed from its provider with the
// keys of the server's environment, which never leave the server. Each run is traced into the
// environment `playground`, whether it answered, failed, or its client stopped listening.
import { isDeepStrictEqual } from 'node:util';
import { getRevisionById } from '../apps/operations.js';
import { randomId, newTraceId } from '../invocation/ids.js';
import { promptRequest } from '../invocation/invocation.js';
import { providerCallSpanFields } from '../invocation/provider-call-span.js';
import type { SpanRecord } from '../observability/ingestion/span-record.js';
import { writeSpans } from '../observability/ingestion/span-writer.js';
import { priceList } from '../pricing/operations.js';
import type { CallCost } from '../pricing/prices.js';
import { type ProviderAccess, providerAccess } from '../providers/access.js';
import type { ChatRequest, ChatUsage } from '../providers/chat.js';
import type { ProviderCallRecord } from '../providers/client.js';
import { chatCompletionStream } from '../providers/stream.js';
import type { RequestContext } from '../shared/context.js';
import { ValidationError } from '../shared/errors.js';
import type { RunPromptInput } from './inputs.js';

/** The environment of the playground's traces: an environment like any app's, shown in trace lists (docs/playground.md#traces). */
export const PLAYGROUND_ENVIRONMENT = 'playground';

/** How long one run may take, its stream included, before it is stopped. */
export const PLAYGROUND_TIMEOUT_MS = 120_000;

/** A run checked and resolved, ready to call its provider. */
export interface PlaygroundRun {
  /** The filled Chat Completions request, its model as the caller named it. */
  request: { model: string } & ChatRequest;
  access: ProviderAccess;
  parameters: Record<string, unknown>;
  variables: Record<string, unknown>;
  /** The revision it started from, and whether what runs differs from it. */
  revision: { id: string; appId: string; variantId: string; variantName: string; revision: number; edited: boolean } | null;
}

/** A piece of the answer, or the run's end with what the trace recorded. */
export type PlaygroundEvent =
  | { kind: 'delta'; text: string }
  | {
      kind: 'end';
      traceId: string;
      output: string;
      /** Why there is no (whole) answer: what the provider said, a missing key, the time limit. */
      error: string | null;
      model: string;
      usage: ChatUsage | null;
      cost: CallCost | null;
      /** Seconds from the call to the end of the answer. */
      latency: number;
    };

/** Resolves the revision (another project's is a 404) and the prompt; throws before anything is called. */
export async function preparePromptRun(ctx: RequestContext, input: RunPromptInput): Promise<PlaygroundRun> {
  let revision: PlaygroundRun['revision'] = null;
  let saved: Record<string, unknown> | null = null;
  if (input.revision_id) {
    const found = await getRevisionById(ctx, input.revision_id);
    if (found.variant.kind !== 'prompt') {
      throw ValidationError.at(['body', 'revision_id'], 'The revision is of an endpoint variant; the playground runs prompt variants', 'value_error');
    }
    saved = found.parameters as Record<string, unknown>;
    revision = {
      id: found.id,
      appId: found.variant.appId,
      variantId: found.variantId,
      variantName: found.variant.name,
      revision: found.revision,
      edited: false,
    };
  }
  const chosen = { ...(input.parameters ?? saved!), ...(input.model ? { model: input.model } : {}) };
  if (revision) revision.edited = !isDeepStrictEqual(chosen, saved);
  const request = promptRequest(chosen, input.variables);
  return { request, access: providerAccess(request.model, null, ctx.providerEnv), parameters: chosen, variables: input.variables, revision };
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/**
 * Streams the run's answer, then its end. A failure of the provider (its status and message, a
 * missing key, the time limit) is the end's `error`, never an exception: the stream always ends.
 * A client that goes away is noticed when the next piece is written to it (docs/playground.md#errors):
 * the generator is returned at its `yield`, the provider's request is stopped and the run traced.
 */
export function runPrompt(ctx: RequestContext, run: PlaygroundRun, timeoutMs = PLAYGROUND_TIMEOUT_MS): AsyncGenerator<PlaygroundEvent> {
  return streamRun(ctx, run, timeoutMs, new AbortController());
}

async function* streamRun(ctx: RequestContext, run: PlaygroundRun, timeoutMs: number, controller: AbortController): AsyncGenerator<PlaygroundEvent> {
  const { access } = run;
  const { model: _asked, ...chat } = run.request;
  const timer = setTimeout(() => controller.abort(new DOMException('timed out', 'TimeoutError')), timeoutMs);
  const startNs = nowNs();
  const started = process.hrtime.bigint();
  const call = { output: '', model: access.model, usage: null as ChatUsage | null, error: null as string | null };
  let ended = false;
  const store = async () => {
    const endNs = startNs + (process.hrtime.bigint() - started);
    const cost = (await priceList(ctx)).callCost(null, call.model, call.usage, new Date(Number(startNs / 1_000_000n)));
    const record: ProviderCallRecord = {
      kind: 'chat',
      provider: access.provider,
      model: call.model,
      request: { ...run.request, model: access.model },
      response: call.error ? null : call.output,
      error: call.error,
      usage: call.usage,
      cost,
      startNs,
      endNs,
      attempts: 1,
    };
    const traceId = newTraceId();
    await writeSpans(ctx, [playgroundSpan(run, record, traceId)]);
    return { traceId, cost, latency: Number(endNs - startNs) / 1e9 };
  };
  try {
    if (!access.apiKey) {
      call.error = `No key for ${access.provider}: set ${access.provider}_API_KEY in the server's environment`;
    } else {
      try {
        for await (const event of chatCompletionStream(access, chat, controller.signal, ctx.outbound)) {
          if (event.kind === 'end') {
            call.model = event.model;
            call.usage = event.usage;
            continue;
          }
          call.output += event.text;
          yield event;
        }
      } catch (error) {
        if (controller.signal.aborted) call.error = `${access.provider} did not finish answering within ${timeoutMs / 1000} s; the answer so far is kept`;
        else call.error = (error as Error).message;
      }
    }
    ended = true;
  } finally {
    clearTimeout(timer);
    if (!ended) {
      // The client went away: the provider is stopped, and what came is still traced.
      controller.abort();
      call.error = 'The client stopped listening before the answer ended';
      await store();
    }
  }
  const stored = await store();
  yield {
    kind: 'end',
    traceId: stored.traceId,
    output: call.output,
    error: call.error,
    model: call.model,
    usage: call.usage,
    cost: stored.cost,
    latency: stored.latency,
  };
}

/** The run's span: the provider call's fields, the prompt's parameters, and the revision when it ran as saved. */
function playgroundSpan(run: PlaygroundRun, record: ProviderCallRecord, traceId: string): SpanRecord {
  const { revision } = run;
  const asSaved = revision && !revision.edited;
  return {
    traceId,
    spanId: randomId(8),
    parentSpanId: null,
    name: revision ? `playground: ${revision.variantName} v${revision.revision}${revision.edited ? ' (edited)' : ''}` : 'playground',
    spanKind: 'LLM',
    ...providerCallSpanFields(record),
    config: run.parameters as SpanRecord['config'],
    environment: PLAYGROUND_ENVIRONMENT,
    appId: revision?.appId ?? null,
    variantId: asSaved ? revision.variantId : null,
    variantName: asSaved ? revision.variantName : null,
    variantRevision: asSaved ? revision.revision : null,
    attributes: {
      'assay.provider': record.provider,
      'assay.playground.variables': run.variables as SpanRecord['attributes'][string],
      ...(revision && { 'assay.playground.revision_id': revision.id, 'assay.playground.edited': revision.edited }),
    },
  };
}
