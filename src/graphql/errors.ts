// The one place an error becomes a GraphQL error: our AssayErrors keep their message and carry
// their code (and, for validation, the same `detail` list REST answers); anything else is masked.
import { GraphQLError } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { AssayError, ValidationError } from '../shared/errors.js';

export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof AssayError) {
    const extensions: Record<string, unknown> = { code: original.code };
    if (original instanceof ValidationError) extensions.detail = original.issues;
    return new GraphQLError(original.message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions,
    });
  }
  // GraphQL's own errors (syntax, validation, limits) are for the client to see.
  if (error instanceof GraphQLError && !(original && !(original instanceof GraphQLError))) return error;
  return createGraphQLError(message);
}
