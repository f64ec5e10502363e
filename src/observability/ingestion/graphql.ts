// GraphQL of ingestion: the `ingestTrace` mutation (the legacy JSON body) and the `tracesStored`
// subscription, which tells live trace lists what each commit of spans stored (docs/ui.md#live-updates).
import type { RequestContext } from '../../shared/context.js';
import { endingWith } from '../../shared/events.js';
import { builder } from '../../shared/graphql/builder.js';
import { ingestLegacyTraceBody, type LegacyIngestAnswer } from './legacy-trace.js';

const IngestedTrace = builder.objectRef<LegacyIngestAnswer>('IngestedTrace').implement({
  description: 'What `ingestTrace` stored.',
  fields: (t) => ({
    traceId: t.exposeString('trace_id', { description: 'The id of the trace the spans joined.' }),
    spans: t.exposeInt('spans', { description: 'Spans stored (a span id sent twice counts once).' }),
  }),
});

builder.mutationField('ingestTrace', (t) =>
  t.field({
    type: IngestedTrace,
    description: 'Stores spans as `POST /observability/trace` does (needs the ingest scope).',
    // Ingestion, not a write: it needs the ingest scope, as the REST path does (docs/access.md#scopes).
    extensions: { scope: 'ingest' },
    args: { input: t.arg({ type: 'JSON', required: true, description: 'The REST body, `{trace, spans: […]}`, in its snake_case names.' }) },
    resolve: (_root, args, ctx) => ingestLegacyTraceBody(ctx, args.input),
  }),
);

/** An empty list once listening, then the ids of the traces of each commit of ingested spans. */
function storedTraces(ctx: RequestContext): AsyncIterableIterator<string[]> {
  // Subscribe before announcing, so no commit falls between the two.
  const commits = ctx.events.subscribe('traces:stored', ctx.projectId)[Symbol.asyncIterator]();
  async function* stream(): AsyncGenerator<string[]> {
    try {
      yield [];
      for (;;) {
        const next = await commits.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await commits.return?.();
    }
  }
  return endingWith(commits, stream());
}

builder.subscriptionField('tracesStored', (t) =>
  t.stringList({
    description:
      'Ingestion as it commits: first an empty list once listening, then the trace ids of each commit of spans (OTLP, `ingestTrace`, `POST /observability/trace`).',
    subscribe: (_root, _args, ctx) => storedTraces(ctx),
    resolve: (traceIds) => traceIds,
  }),
);
