// Limits on a GraphQL document, checked before it is validated or run, so a document built to
// exhaust the server is refused cheaply with QUERY_TOO_COMPLEX and HTTP 400 (docs/graphql-limits.md).
// Depth and complexity of what a query selects are Pothos' limits (builder.ts).
import { Kind, Lexer, Source, TokenKind, type DocumentNode, type GraphQLError, type FragmentDefinitionNode, type SelectionSetNode, type Token } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export const documentLimits = {
  /** Characters of the document: the parser cache keeps each distinct document as its key. */
  length: 100_000,
  /** Lexical tokens: bounds parsing and validation (whose field-merging check is quadratic). */
  tokens: 2_000,
  /** Open brackets (`{`, `[`, `(`) at once: graphql-js parses recursively and overflows the stack. */
  nesting: 64,
  /** Aliased fields in one operation and the fragments it uses. */
  aliases: 50,
  /** `__schema` and `__type` fields in one operation: each walks the whole schema. */
  introspection: 3,
} as const;

type Limit = keyof typeof documentLimits;

function refused(limit: Limit, message: string) {
  return createGraphQLError(`${message} (limit ${documentLimits[limit]})`, {
    extensions: { code: 'QUERY_TOO_COMPLEX', limit, max: documentLimits[limit], http: { status: 400, spec: false } },
  });
}

const opening = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const closing = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * The lexer's next token, or undefined at a syntax error: that is the parser's to report, as Yoga
 * answers it (GRAPHQL_PARSE_FAILED, HTTP 400), not as the lexer's bare error (which would be a 200).
 */
function nextToken(lexer: Lexer): Token | undefined {
  try {
    return lexer.advance();
  } catch {
    return undefined;
  }
}

/** Length, tokens and nesting, read by graphql's own (iterative) lexer before the parser runs. */
export function checkSource(source: string | Source): void {
  const body = typeof source === 'string' ? source : source.body;
  if (body.length > documentLimits.length) {
    throw refused('length', `The document is ${body.length} characters long`);
  }
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let tokens = 0;
  let depth = 0;
  for (let token = nextToken(lexer); token && token.kind !== TokenKind.EOF; token = nextToken(lexer)) {
    if (++tokens > documentLimits.tokens) throw refused('tokens', 'The document has too many tokens');
    if (opening.has(token.kind) && ++depth > documentLimits.nesting) {
      throw refused('nesting', `The document nests brackets too deeply at line ${token.line}`);
    } else if (closing.has(token.kind)) depth--;
  }
}

/** Aliases and introspection fields of each operation, counting each fragment it uses once. */
export function checkOperations(document: DocumentNode): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  for (const operation of document.definitions) {
    if (operation.kind !== Kind.OPERATION_DEFINITION) continue;
    const name = operation.name ? `Operation ${operation.name.value}` : 'The operation';
    let aliases = 0;
    let introspection = 0;
    const seen = new Set<string>();
    const pending: SelectionSetNode[] = [operation.selectionSet];
    for (let set = pending.pop(); set; set = pending.pop()) {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.alias && ++aliases > documentLimits.aliases) throw refused('aliases', `${name} has too many aliases`);
          if ((selection.name.value === '__schema' || selection.name.value === '__type') && ++introspection > documentLimits.introspection) {
            throw refused('introspection', `${name} selects __schema or __type too many times`);
          }
          if (selection.selectionSet) pending.push(selection.selectionSet);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          pending.push(selection.selectionSet);
        } else if (!seen.has(selection.name.value)) {
          seen.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          // An unknown fragment is validation's to report.
          if (fragment) pending.push(fragment.selectionSet);
        }
      }
    }
  }
}

/**
 * The Yoga plugin. Source limits throw before Yoga's parser cache runs, so a refused document is
 * not kept in its error cache; operation limits answer in place of validation (which is skipped).
 * Both answer HTTP 400 whatever the Accept header (`spec: false`: a refusal, not a malformed request).
 */
export function useDocumentLimits(): Plugin {
  return {
    onParse({ params }) {
      checkSource(params.source as string | Source);
    },
    onValidate({ params, setResult }) {
      try {
        checkOperations(params.documentAST as DocumentNode);
      } catch (error) {
        setResult([error as GraphQLError]);
      }
    },
  };
}
