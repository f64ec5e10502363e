// The one place an error becomes a GraphQL error: our AssayErrors keep their message and carry
// their code (and, for validation, the same `detail` list REST answers); anything else is masked.
import type { GraphQLError } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { AssayError, ValidationError } from '../errors.js';

// Duck-typed, not `instanceof`: graphql can be loaded twice (its ESM and CJS builds), and an
// error made by one copy is not an instance of the other's class.
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}

/** Refusals of the caller itself (no key, a missing scope, its rate limit) answer with their HTTP status. */
const httpStatuses = new Set([401, 403, 429]);

/** An AssayError as GraphQL reports it: its message and code (docs/access.md#errors for the statuses). */
export function assayGraphQLError(error: AssayError, located: Pick<GraphQLError, 'nodes' | 'path'> | object = {}): GraphQLError {
  const extensions: Record<string, unknown> = { code: error.code };
  if (error instanceof ValidationError) extensions.detail = error.issues;
  if (httpStatuses.has(error.status)) extensions.http = { status: error.status, headers: error.headers() };
  return createGraphQLError(error.message, { ...located, extensions });
}

export function maskError(error: unknown, message: string): Error {
  const original = isGraphQLError(error) ? error.originalError : error;
  const located = isGraphQLError(error) ? { nodes: error.nodes, path: error.path } : {};
  if (original instanceof AssayError) return assayGraphQLError(original, located);
  // A global id that is malformed or of another type (Pothos' check of `t.arg.globalID`).
  if (original instanceof Error && original.name === 'PothosValidationError') {
    return createGraphQLError(original.message, { ...located, extensions: { code: 'BAD_USER_INPUT' } });
  }
  // A global id that is malformed or of another type (Pothos' check of `t.arg.globalID`).
  if (original instanceof Error && original.name === 'PothosValidationError') {
    return createGraphQLError(original.message, { ...located, extensions: { code: 'BAD_USER_INPUT' } });
  }
  // GraphQL's own errors (syntax, validation, limits) are for the client to see.
  if (isGraphQLError(error) && (!original || isGraphQLError(original))) return error;
  return createGraphQLError(message, { ...located, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}
