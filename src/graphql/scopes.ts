// The scopes a GraphQL operation needs (docs/access.md#scopes), checked before it runs: every root
// field of a query or subscription needs `read`, of a mutation `write`, unless the field names
// another scope in its `extensions.scope` (the key mutations need `admin`, ingestTrace `ingest`).
// A missing scope answers FORBIDDEN with HTTP 403, on /graphql and /graphql/stream alike.
// Credentials themselves were checked before the request reached Yoga (server.ts).
import {
  getOperationAST,
  Kind,
  type OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requireProject } from '../auth/access.js';
import { requireScope, type RequestContext, type Scope } from '../shared/context.js';
import { AssayError } from '../shared/errors.js';
import { assayGraphQLError } from '../shared/graphql/errors.js';

const defaultScope: Record<OperationTypeNode, Scope> = { query: 'read', subscription: 'read', mutation: 'write' };

/** The root fields an operation selects, through its fragments. */
function rootFields(selections: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, into = new Set<string>()): Set<string> {
  for (const selection of selections.selections) {
    if (selection.kind === Kind.FIELD) into.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) rootFields(selection.selectionSet, fragments, into);
    else {
      const fragment = fragments.get(selection.name.value);
      // Each fragment once: validation refuses cycles, but this may run on what it has not seen.
      if (fragment && fragments.delete(selection.name.value)) rootFields(fragment.selectionSet, fragments, into);
    }
  }
  return into;
}

/** Every scope the operation needs. */
export function operationScopes(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): Set<Scope> {
  const operation = getOperationAST(document, operationName);
  if (!operation) return new Set();
  const root = schema.getRootType(operation.operation);
  const fragments = new Map(document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const needed = new Set<Scope>();
  for (const name of rootFields(operation.selectionSet, fragments)) {
    // Introspection (__schema, __type, __typename) needs credentials only.
    if (name.startsWith('__')) continue;
    const declared = root?.getFields()[name]?.extensions?.scope as Scope | undefined;
    needed.add(declared ?? defaultScope[operation.operation]);
  }
  return needed;
}

/**
 * Whether every root field of the operation acts in no project (`extensions.instanceWide`:
 * `projects`, `createProject`, `me`), which a session of several projects may run without naming one.
 */
function instanceWide(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation) return false;
  const root = schema.getRootType(operation.operation);
  const fragments = new Map(document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  return [...rootFields(operation.selectionSet, fragments)].every(
    (name) => name.startsWith('__') || root?.getFields()[name]?.extensions?.instanceWide === true,
  );
}

/** The FORBIDDEN result of an operation whose caller lacks a scope it needs (or the project it needs), or null. */
function refusal(args: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null; contextValue: unknown }) {
  const { principal } = args.contextValue as RequestContext;
  try {
    if (!instanceWide(args.schema, args.document, args.operationName)) requireProject(principal);
    for (const scope of operationScopes(args.schema, args.document, args.operationName)) requireScope(principal, scope);
    return null;
  } catch (error) {
    if (error instanceof AssayError) return { errors: [assayGraphQLError(error)] };
    throw error;
  }
}

export function useScopes(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
