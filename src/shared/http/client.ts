// POSTing JSON to another service (a user's endpoint, a model provider), with its failures sorted
// into transient (a retry may cure them: unreachable, timeout, 408, 429, 5xx) and permanent.
import { PermanentError, TransientError, isTransientStatus, retryAfterMs } from '../retry.js';

/** The start of a reply, for error messages a user can act on. */
export function excerpt(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export interface PostOptions {
  /** Who is called, as error messages name it ("The endpoint http://…", "OPENAI"). */
  peer: string;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/** POSTs `body` as JSON; answers the text of a 2xx reply, throws TransientError or PermanentError otherwise. */
export async function postJson(url: string, body: unknown, options: PostOptions): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify(body),
      signal: options.signal,
    });
  } catch (error) {
    throw new TransientError(`${options.peer} could not be reached: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    const message = `${options.peer} answered ${response.status}: ${excerpt(text)}`;
    if (isTransientStatus(response.status)) throw new TransientError(message, retryAfterMs(response.headers.get('retry-after')));
    throw new PermanentError(message);
  }
  return text;
}
