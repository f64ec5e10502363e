// One evaluator call of online evaluation (docs/online-evaluation.md#jobs): under a hard time
// limit, its provider calls recorded, its failure told apart as transient (tried again) or not.
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import type { Result } from '../evaluators/results.js';
import { getScorer, isTransientError, type TraceSpanView } from '../evaluators/scoring.js';
import { priceList } from '../pricing/operations.js';
import { ProviderCallError, type ProviderCallRecord, type ProviderClient, providerClient } from '../providers/client.js';
import type { RequestContext, Services } from '../shared/context.js';
import { asObject } from '../shared/json.js';
import { TransientError } from '../shared/retry.js';
import type { EvaluatorVariables } from './mapping.js';

export type Outcome =
  | { kind: 'scored'; result: Result; variables: EvaluatorVariables; calls: ProviderCallRecord[]; latency: number; startedAt: Date }
  | { kind: 'transient'; message: string; retryAfterMs?: number; calls: ProviderCallRecord[]; startedAt: Date }
  | { kind: 'failed'; message: string; calls: ProviderCallRecord[]; startedAt: Date };

/** A provider client that remembers the transient failure behind a failed call, which the scorer turns into an error Result. */
function watched(client: ProviderClient): { client: ProviderClient; transient: () => TransientError | undefined } {
  let transient: TransientError | undefined;
  const note = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ProviderCallError && error.cause instanceof TransientError) transient = error.cause;
      throw error;
    }
  };
  return {
    client: { chat: (model, request) => note(() => client.chat(model, request)), embed: (model, input) => note(() => client.embed(model, input)) },
    transient: () => transient,
  };
}

class EvaluatorTimeout extends Error {}

/**
 * Runs the evaluator of `config` once on `variables` under the hard time limit, its provider calls
 * recorded: the outcome says whether it scored, failed transiently (retried later) or for good.
 * Throws only when `signal` aborts (the job stopped).
 */
export async function runEvaluator(
  services: Services,
  timeoutMs: number,
  ctx: RequestContext,
  config: EvaluatorConfig,
  variables: EvaluatorVariables,
  views: TraceSpanView[],
  stop: AbortSignal,
): Promise<Outcome> {
  const scorer = getScorer(config.evaluatorKey);
  const startedAt = new Date();
  const calls: ProviderCallRecord[] = [];
  if (!scorer) return { kind: 'failed', message: `The evaluator ${config.evaluatorKey} cannot run in this version`, calls, startedAt };
  const timeout = new AbortController();
  const signal = AbortSignal.any([stop, timeout.signal]);
  const providers = watched(
    providerClient({
      prices: await priceList(ctx),
      keys: null,
      env: services.providerEnv,
      dispatcher: services.outbound,
      timeoutMs,
      retries: 0,
      retryDelayMs: 0,
      signal,
      onCall: (call) => calls.push(call),
    }),
  );
  const testcase = variables.expected === undefined ? variables.inputs : { ...variables.inputs, correct_answer: variables.expected };
  const started = process.hrtime.bigint();
  let timer: NodeJS.Timeout | undefined;
  // The hard limit holds even for an evaluator that ignores its signal: the race ends the case.
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      timeout.abort();
      reject(new EvaluatorTimeout(`The evaluator did not answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([
      scorer(
        asObject(config.settingsValues),
        { testcase, output: variables.output, correctAnswerColumn: null, appParams: {}, trace: views },
        {
          signal,
          providers: providers.client,
          dispatcher: services.outbound,
        },
      ),
      expired,
    ]);
    stop.throwIfAborted();
    const latency = Number(process.hrtime.bigint() - started) / 1e9;
    const transient = providers.transient();
    if (result.type === 'error') {
      const message = result.error?.message ?? 'The evaluator failed';
      if (transient || isTransientError(result)) return { kind: 'transient', message, retryAfterMs: transient?.retryAfterMs, calls, startedAt };
      return { kind: 'failed', message, calls, startedAt };
    }
    if (numericValue(result) === null) {
      return {
        kind: 'failed',
        message: `The evaluator answered ${result.type} ${JSON.stringify(result.value)}, not a number or a boolean a score can hold`,
        calls,
        startedAt,
      };
    }
    return { kind: 'scored', result, variables, calls, latency, startedAt };
  } catch (error) {
    stop.throwIfAborted();
    if (error instanceof EvaluatorTimeout) return { kind: 'transient', message: error.message, calls, startedAt };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The number a score holds of a result: a boolean as 1/0, a finite number; else null. */
export function numericValue(result: Result): number | null {
  if (result.type === 'bool' && typeof result.value === 'boolean') return result.value ? 1 : 0;
  if (typeof result.value === 'number' && Number.isFinite(result.value)) return result.value;
  return null;
}
