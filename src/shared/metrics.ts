// The service's Prometheus metrics (docs/operations.md lists each one). One registry per Assay
// instance, kept in Services: several servers run in one test process, and prom-client's global
// registry would mix them. Counters are bumped where the work is done, once per request or batch
// (never per span: ingestion runs at tens of thousands of spans a second); gauges of state another
// part owns (the write queue, running jobs) read it at scrape time through the probes given here.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const spanTransports = ['otlp_http', 'otlp_grpc', 'legacy'] as const;
/** How a span reached the service. */
export type SpanTransport = (typeof spanTransports)[number];

const spanRejections = ['invalid', 'overloaded'] as const;
/** Why spans were not stored: invalid (partial success, or a refused legacy body), or the write queue was full. */
export type SpanRejection = (typeof spanRejections)[number];

const evaluationKinds = ['evaluation', 'human-evaluation', 'online-evaluation', 'online-evaluation-backfill'] as const;
/** The kinds of job the evaluation engine runs, as each names itself (evaluation-engine/job-kind.ts). */
export type EvaluationKind = (typeof evaluationKinds)[number];

/** What the span write queue tells readiness and the depth gauge (observability/ingestion/write-queue.ts). */
export interface WriteQueueProbe {
  readonly waitingSpans: number;
  readonly limits: { readonly maxQueuedSpans: number };
}

/** The route label of a request no route matched: one label, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export class Metrics {
  readonly registry = new Registry();
  /** Its `_count` is the request count by route and status. */
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly spansIngested: Counter<'transport'>;
  readonly spansRejected: Counter<'transport' | 'reason'>;
  readonly evaluationCases: Counter<'kind' | 'outcome'>;
  private writeQueue: WriteQueueProbe | null = null;
  private readonly runningJobs = new Map<EvaluationKind, () => number>();

  constructor() {
    const registers = [this.registry];
    this.httpRequestDuration = new Histogram({
      name: 'assay_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status, and how long they took to answer',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.spansIngested = new Counter({
      name: 'assay_spans_ingested_total',
      help: 'Spans stored by ingestion, by transport',
      labelNames: ['transport'],
      registers,
    });
    this.spansRejected = new Counter({
      name: 'assay_spans_rejected_total',
      help: 'Spans ingestion did not store, by transport and reason (invalid, or overloaded: the write queue was full)',
      labelNames: ['transport', 'reason'],
      registers,
    });
    this.evaluationCases = new Counter({
      name: 'assay_evaluation_cases_total',
      help: 'Test cases stored by evaluation runs, by kind and outcome (ok, or errored: an output or a score is an error)',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    // Every series of a known label set exists from the start at 0, so rate() sees its first increase.
    for (const transport of spanTransports) {
      this.spansIngested.inc({ transport }, 0);
      // Legacy bodies are written directly, never queued: they are never refused as overloaded.
      for (const reason of spanRejections) if (transport !== 'legacy' || reason !== 'overloaded') this.spansRejected.inc({ transport, reason }, 0);
    }
    for (const kind of evaluationKinds) for (const outcome of ['ok', 'errored']) this.evaluationCases.inc({ kind, outcome }, 0);
    const waiting = new Gauge({
      name: 'assay_write_queue_spans',
      help: 'Spans waiting in the ingestion write queue (not counting the batch being written)',
      registers,
      collect: () => {
        waiting.set(this.writeQueue?.waitingSpans ?? 0);
      },
    });
    const limit = new Gauge({
      name: 'assay_write_queue_limit_spans',
      help: 'Waiting spans beyond which ingestion answers 503 and /readyz is not ready',
      registers,
      collect: () => {
        if (this.writeQueue) limit.set(this.writeQueue.limits.maxQueuedSpans);
      },
    });
    const running = new Gauge({
      name: 'assay_evaluations_running',
      help: 'Evaluation runs this process is working on, by kind',
      labelNames: ['kind'],
      registers,
      collect: () => {
        for (const [kind, count] of this.runningJobs) running.set({ kind }, count());
      },
    });
    // Event-loop lag, memory, CPU, handles, GC: prom-client's standard process metrics.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The write queue whose depth is reported and checked by /readyz. */
  watchWriteQueue(queue: WriteQueueProbe): void {
    this.writeQueue = queue;
  }

  get writeQueueState(): WriteQueueProbe | null {
    return this.writeQueue;
  }

  /** Where the running-evaluations gauge reads how many runs of `kind` are under way. */
  watchRunningJobs(kind: EvaluationKind, count: () => number): void {
    this.runningJobs.set(kind, count);
  }

  /** Counts a batch of stored test cases, `errored` of them with an error. */
  countCases(kind: EvaluationKind, stored: number, errored: number): void {
    if (stored - errored > 0) this.evaluationCases.inc({ kind, outcome: 'ok' }, stored - errored);
    if (errored > 0) this.evaluationCases.inc({ kind, outcome: 'errored' }, errored);
  }

  /** Counts one ingest request's spans: those stored and those refused. */
  countSpans(transport: SpanTransport, stored: number, rejected = 0, reason: SpanRejection = 'invalid'): void {
    if (stored > 0) this.spansIngested.inc({ transport }, stored);
    if (rejected > 0) this.spansRejected.inc({ transport, reason }, rejected);
  }
}
