// One span's details, loaded when it is selected (docs/ui.md#span-details): figures, inputs and
// outputs for people, exceptions, and the raw attributes, events, resource and scope.
import { useState, type ReactNode } from 'react';
import { graphql, useFragment, usePreloadedQuery, type PreloadedQuery } from 'react-relay';
import type { SpanDetails_span$key } from '../__generated__/SpanDetails_span.graphql.ts';
import type { SpanDetailsQuery } from '../__generated__/SpanDetailsQuery.graphql.ts';
import { formatCost, formatCount, formatDuration, formatTime } from '../format.ts';
import { Empty } from '../components/states.tsx';
import { ContentView, JsonView, LongText } from './content.tsx';
import { exceptionsOf } from './messages.ts';

/** The selected span's query, which the route preloads (entrypoints.ts) and "Try again" loads anew. */
export const spanDetailsQuery = graphql`
  query SpanDetailsQuery($traceId: String!, $spanId: String!) {
    span(traceId: $traceId, spanId: $spanId) {
      ...SpanDetails_span
    }
  }
`;

const spanFragment = graphql`
  fragment SpanDetails_span on Span {
    id
    spanId
    parentSpanId
    name
    spanKind
    status
    statusMessage
    startTime
    endTime
    latency
    model
    costSource
    cachedTokens
    environment
    userId
    sessionId
    metadata {
      cost
      usage {
        promptTokens
        completionTokens
        totalTokens
      }
    }
    variant {
      variantName
      revision
    }
    content {
      inputs
      outputs
      internals
    }
    config
    events
    links
    attributes
    resource
    scope
  }
`;

/** A foldable part; a closed one renders nothing inside until opened (raw attributes may be large). */
function Section({ title, children, open: initiallyOpen = true }: { title: string; children: ReactNode; open?: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <details className="section" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        <h3>{title}</h3>
      </summary>
      {open && children}
    </details>
  );
}

/** The selected span, from the query its route preloaded. */
export function SpanDetails({ query: queryRef }: { query: PreloadedQuery<SpanDetailsQuery> }) {
  const { span } = usePreloadedQuery<SpanDetailsQuery>(spanDetailsQuery, queryRef);
  if (!span) return <Empty title="This span is not there any more" />;
  return <SpanDetailsView span={span} />;
}

function SpanDetailsView({ span: spanRef }: { span: SpanDetails_span$key }) {
  const span = useFragment(spanFragment, spanRef);
  const usage = span.metadata.usage;
  const exceptions = exceptionsOf(span.events);
  const figures: [string, string][] = [
    ['Kind', span.spanKind],
    ['Status', span.status],
    ['Latency', formatDuration(span.latency)],
    ['Started', formatTime(span.startTime)],
    ...(span.model ? ([['Model', span.model]] as [string, string][]) : []),
    [
      'Tokens',
      usage.totalTokens == null ? '–' : `${formatCount(usage.totalTokens)} (${formatCount(usage.promptTokens)} in, ${formatCount(usage.completionTokens)} out)`,
    ],
    ...(span.cachedTokens != null ? ([['Cached tokens', formatCount(span.cachedTokens)]] as [string, string][]) : []),
    ['Cost', `${formatCost(span.metadata.cost)}${span.costSource ? ` (${span.costSource})` : ''}`],
    ...(span.variant.variantName
      ? ([['Variant', `${span.variant.variantName}${span.variant.revision != null ? ` r${span.variant.revision}` : ''}`]] as [string, string][])
      : []),
    ...(span.environment ? ([['Environment', span.environment]] as [string, string][]) : []),
    ...(span.userId ? ([['User', span.userId]] as [string, string][]) : []),
    ...(span.sessionId ? ([['Session', span.sessionId]] as [string, string][]) : []),
    ['Span id', span.spanId],
  ];
  return (
    <article className="span-details" aria-labelledby="span-details-title">
      <h2 id="span-details-title">{span.name}</h2>
      <dl className="figures">
        {figures.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd className={label === 'Status' && value === 'ERROR' ? 'error-text' : undefined}>{value}</dd>
          </div>
        ))}
      </dl>
      {span.statusMessage && (
        <div className="state error" role="note">
          <LongText text={span.statusMessage} />
        </div>
      )}
      {exceptions.length > 0 && (
        <Section title={`Exceptions (${exceptions.length})`}>
          {exceptions.map((exception, i) => (
            <div key={i} className="exception">
              <p>
                <strong>{exception.type ?? 'Exception'}</strong>
                {exception.message ? `: ${exception.message}` : ''}
              </p>
              {exception.stacktrace && <LongText text={exception.stacktrace} />}
            </div>
          ))}
        </Section>
      )}
      <Section title="Inputs">
        <ContentView value={span.content.inputs} />
      </Section>
      <Section title="Outputs">
        <ContentView value={span.content.outputs} />
      </Section>
      {span.content.internals != null && (
        <Section title="Internals" open={false}>
          <JsonView value={span.content.internals} />
        </Section>
      )}
      {span.config != null && (
        <Section title="Model configuration" open={false}>
          <JsonView value={span.config} />
        </Section>
      )}
      <Section title="Attributes" open={false}>
        <JsonView value={span.attributes} />
      </Section>
      {span.events != null && (
        <Section title="Events" open={false}>
          <JsonView value={span.events} />
        </Section>
      )}
      {span.links != null && (
        <Section title="Links" open={false}>
          <JsonView value={span.links} />
        </Section>
      )}
      {span.resource != null && (
        <Section title="Resource" open={false}>
          <JsonView value={span.resource} />
        </Section>
      )}
      {span.scope != null && (
        <Section title="Instrumentation scope" open={false}>
          <JsonView value={span.scope} />
        </Section>
      )}
    </article>
  );
}
