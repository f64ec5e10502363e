// The one error family operations throw. Each carries its HTTP status and GraphQL code, so the
// REST adapter and the GraphQL layer map it in one place each (shared/http/errors.ts, shared/graphql/errors.ts).

/**
 * The start of a text, for an error message a user can act on: whitespace runs become one space,
 * and a longer text is cut after `max` characters (never inside a surrogate pair) with "…".
 */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max ? chars.slice(0, max).join('') + '…' : flat;
}

/** One fault in a request, in FastAPI's shape: where, what, and which kind. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  /** What was refused, where FastAPI shows it and a client could not tell otherwise (a body that was not JSON). */
  input?: string;
}

export abstract class AssayError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  /** The REST body; FastAPI's `{detail}` form. */
  body(): unknown {
    return { detail: this.message };
  }
  headers(): Record<string, string> {
    return {};
  }
}

export class NotFoundError extends AssayError {
  readonly status = 404;
  readonly code = 'NOT_FOUND';
  constructor(kind: string, id: string) {
    super(`${kind} with id ${id} not found`);
  }
}

export class ValidationError extends AssayError {
  readonly status = 422;
  readonly code = 'BAD_USER_INPUT';
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
  override body() {
    return { detail: this.issues };
  }
  /** A single fault, for checks made after the shape of the input was validated. */
  static at(loc: (string | number)[], msg: string, type = 'value_error') {
    return new ValidationError([{ loc, msg, type }]);
  }
}

export class ConflictError extends AssayError {
  readonly status = 409;
  readonly code = 'CONFLICT';
}

/** Every scheme a key may come in: what a refusal of a request without a session challenges. */
const KEY_CHALLENGE = 'Bearer realm="assay", Basic realm="assay"';

/**
 * No credentials, or ones that open nothing. The challenge names every scheme a key may come in;
 * a refused login or session leaves Basic out, so a browser shows its page rather than its own prompt.
 */
export class UnauthorizedError extends AssayError {
  readonly status = 401;
  readonly code = 'UNAUTHENTICATED';
  constructor(
    message: string,
    private readonly challenge: 'key' | 'session' = 'key',
  ) {
    super(message);
  }
  override headers() {
    return { 'www-authenticate': this.challenge === 'key' ? KEY_CHALLENGE : 'Bearer realm="assay"' };
  }
}

export class ForbiddenError extends AssayError {
  readonly status = 403;
  readonly code = 'FORBIDDEN';
}

/** A request for a host name this server does not serve (docs/access.md#browsers: DNS rebinding). */
export class MisdirectedRequestError extends AssayError {
  readonly status = 421;
  readonly code = 'MISDIRECTED_REQUEST';
}

/** A refusal that says when to come back: its `Retry-After`. */
abstract class RetryLaterError extends AssayError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
  override headers() {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

/** Over a key's requests per minute (docs/access.md#rate-limits). */
export class TooManyRequestsError extends RetryLaterError {
  readonly status = 429;
  readonly code = 'TOO_MANY_REQUESTS';
}

export class PayloadTooLargeError extends AssayError {
  readonly status = 413;
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export class UnsupportedMediaTypeError extends AssayError {
  readonly status = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** The service cannot do its work right now (a readiness check failed). */
export class ServiceUnavailableError extends AssayError {
  readonly status = 503;
  readonly code = 'UNAVAILABLE';
}

export class OverloadedError extends RetryLaterError {
  readonly status = 503;
  readonly code = 'OVERLOADED';
}
