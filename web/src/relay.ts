// The Relay environment of one project (docs/ui.md#api-access): queries and mutations POST to
// /graphql, subscriptions stream from /graphql/stream (graphql-sse), both with the session cookie
// (`credentials: 'same-origin'`) and the project the URL names (`X-Assay-Project`), so a session
// that may act in several projects acts in the one on screen. With auth off neither is needed.
import { createClient } from 'graphql-sse';
import { Environment, Network, Observable, RecordSource, Store, type FetchFunction, type GraphQLResponse, type SubscribeFunction } from 'relay-runtime';

/** The header naming the project a session request acts in. */
export const PROJECT_HEADER = 'X-Assay-Project';

/** One fault of a refused input, as REST's 422 lists it (`extensions.detail` in GraphQL). */
export interface InputIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An answer the API refused (HTTP error or GraphQL errors without data), with its code. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    /** BAD_USER_INPUT: where each fault is, so a form shows it beside its field. */
    readonly detail: InputIssue[] = [],
  ) {
    super(message);
  }
}

type Body = { data?: unknown; errors?: { message: string; extensions?: { code?: string; detail?: InputIssue[] } }[] };

function headersFor(projectId: string | null): Record<string, string> {
  return projectId ? { [PROJECT_HEADER]: projectId } : {};
}

export function createEnvironment(projectId: string | null): Environment {
  const fetchQuery: FetchFunction = async (operation, variables) => {
    const response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headersFor(projectId) },
      body: JSON.stringify({ query: operation.text, variables }),
    });
    const body = (await response.json().catch(() => ({}))) as Body;
    // Partial data (a trace that is not there: null with NOT_FOUND) is the screen's to show.
    if (body.data == null) {
      const first = body.errors?.[0];
      throw new ApiError(first?.message ?? `The server answered ${response.status}`, response.status, first?.extensions?.code, first?.extensions?.detail);
    }
    return body as GraphQLResponse;
  };

  const sse = createClient({ url: '/graphql/stream', credentials: 'same-origin', headers: () => headersFor(projectId) });
  const subscribe: SubscribeFunction = (operation, variables) =>
    Observable.create<GraphQLResponse>((sink) =>
      sse.subscribe(
        { query: operation.text ?? '', variables },
        {
          next: (value) => sink.next(value as GraphQLResponse),
          error: (error) => sink.error(error instanceof Error ? error : new Error(String(error))),
          complete: () => sink.complete(),
        },
      ),
    );

  return new Environment({ network: Network.create(fetchQuery, subscribe), store: new Store(new RecordSource()) });
}
