// POSTing JSON to another service (a user's endpoint, a model provider), with its failures sorted
// into transient (a retry may cure them: unreachable, timeout, 408, 429, 5xx) and permanent.
//
// undici's `request` rather than global fetch: the same HTTP stack without the WHATWG layer
// (Request/Response/Headers objects, an AbortController per request), about a quarter of fetch's
// CPU per call, which an evaluation pays for every test case. Redirects are followed as fetch
// followed them (up to 20; a 303 becomes a GET).
import { type Dispatcher, interceptors, request } from 'undici';
import { excerpt } from '../errors.js';
import { type CallSignal, PermanentError, TransientError, isTransientStatus, retryAfterMs } from '../retry.js';
import { outboundRefusal } from './outbound.js';

/** Each service's checked dispatcher (`Services.outbound`, outbound.ts), following redirects. */
const following = new WeakMap<Dispatcher, Dispatcher>();

function followingRedirects(dispatcher: Dispatcher): Dispatcher {
  let composed = following.get(dispatcher);
  if (!composed) {
    composed = dispatcher.compose(interceptors.redirect({ maxRedirections: 20 }));
    following.set(dispatcher, composed);
  }
  return composed;
}

export interface PostOptions {
  /** Who is called, as error messages name it ("The endpoint http://…", "OPENAI"). */
  peer: string;
  signal: CallSignal;
  /** The service's outbound dispatcher (`Services.outbound`): its keep-alive pools and address checks. */
  dispatcher: Dispatcher;
  headers?: Record<string, string>;
}

/** POSTs `body` as JSON; answers the text of a 2xx reply, throws TransientError or PermanentError otherwise. */
export async function postJson(url: string, body: unknown, options: PostOptions): Promise<string> {
  return (await openPost(url, body, options)).body.text();
}

/**
 * POSTs `body` as JSON and answers a 2xx reply as soon as its head has come, its body still to be
 * read (a provider's event stream); throws TransientError or PermanentError as postJson does.
 */
export async function openPost(url: string, body: unknown, options: PostOptions): Promise<Dispatcher.ResponseData> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: 'POST',
      headers: { accept: '*/*', 'user-agent': 'assay', 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify(body),
      signal: options.signal,
      dispatcher: followingRedirects(options.dispatcher),
    });
  } catch (error) {
    const refused = outboundRefusal(error);
    if (refused) throw new PermanentError(`${options.peer}: ${refused.message}`);
    throw new TransientError(`${options.peer} could not be reached: ${(error as Error).message}`);
  }
  const status = response.statusCode;
  if (status < 200 || status > 299) {
    const text = await response.body.text();
    const message = `${options.peer} answered ${status}: ${excerpt(text, 300)}`;
    if (isTransientStatus(status)) throw new TransientError(message, retryAfterMs(headerValue(response.headers['retry-after'])));
    throw new PermanentError(message);
  }
  return response;
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
