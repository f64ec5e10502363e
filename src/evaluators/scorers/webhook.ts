// The webhook evaluator: POSTs {inputs, output, correct_answer} as JSON to the configured URL and
// reads the number in the `score` field of its 2xx JSON reply. Every way this can fail becomes an
// error Result naming the URL and what came back. Edge cases are listed in ../scoring.ts.
import { fetch, type Response } from 'undici';
import { type Result, result } from '../results.js';
import { type Scorer, ScoringFault, guarded, isPlainObject, optionalGroundTruth, stringSetting } from './common.js';
import { excerpt } from '../../shared/errors.js';
import { outboundRefusal } from '../../shared/http/outbound.js';
import { isTransientStatus } from '../../shared/retry.js';

/** How long a webhook may take to answer (headers and body), unless the caller's signal ends sooner. */
export const WEBHOOK_TIMEOUT_MS = 30_000;

/** The largest reply read; a webhook only has to send a score. */
export const WEBHOOK_MAX_REPLY_BYTES = 1_000_000;

async function readReply(response: Response, url: string): Promise<string> {
  if (!response.body) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > WEBHOOK_MAX_REPLY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ScoringFault(`Webhook ${url} sent a reply larger than ${WEBHOOK_MAX_REPLY_BYTES} bytes; it should answer {"score": <number>}`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The fault for a call that did not get a reply: our timeout, the caller's abort, or the network. */
function callFailure(url: string, error: unknown, timeout: AbortSignal, caller: AbortSignal, timeoutMs: number): ScoringFault {
  if (caller.aborted) {
    const reason = caller.reason as { name?: string } | undefined;
    if (reason?.name === 'TimeoutError') return new ScoringFault(`Webhook ${url} did not answer in time (the evaluation's time limit ran out)`);
    return new ScoringFault(`The call to webhook ${url} was cancelled`);
  }
  if (timeout.aborted) {
    return new ScoringFault(`Webhook ${url} did not answer within ${seconds(timeoutMs)}`, { cause: error, transient: true });
  }
  if (error instanceof ScoringFault) return error;
  const refused = outboundRefusal(error);
  if (refused) return new ScoringFault(`Webhook ${url}: ${refused.message}`);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return new ScoringFault(`Webhook ${url} could not be reached: ${detail}`, { cause: error, transient: true });
}

/** The webhook scorer, with the time it allows a webhook to answer. */
export function webhookScorer(timeoutMs = WEBHOOK_TIMEOUT_MS): Scorer {
  return guarded(async (settings, scoringCase, context): Promise<Result> => {
    const url = stringSetting(settings, 'webhook_url');
    const body = JSON.stringify({
      inputs: scoringCase.testcase,
      output: scoringCase.output ?? null,
      correct_answer: optionalGroundTruth(settings, scoringCase) ?? null,
    });
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([context.signal, timeout]);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal,
        // A redirect would turn the POST into a GET; say where it points instead.
        redirect: 'manual',
        dispatcher: context.dispatcher,
      });
      text = await readReply(response, url);
    } catch (error) {
      throw callFailure(url, error, timeout, context.signal, timeoutMs);
    }

    const status = response.status;
    if (status >= 300 && status < 400) {
      const location = response.headers.get('location');
      throw new ScoringFault(
        `Webhook ${url} answered ${status} redirecting to ${location ?? '(no location)'}; redirects are not followed, so set the final address`,
      );
    }
    if (status < 200 || status >= 300) {
      throw new ScoringFault(`Webhook ${url} answered ${status}: ${excerpt(text) || '(empty body)'}`, { transient: isTransientStatus(status) });
    }
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new ScoringFault(`Webhook ${url} answered ${status} with a reply that is not JSON: ${excerpt(text) || '(empty body)'}`);
    }
    const score = isPlainObject(reply) ? reply.score : undefined;
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new ScoringFault(`Webhook reply has no numeric "score": ${excerpt(text)}`);
    }
    return result('number', score);
  });
}

export const webhook = webhookScorer();
