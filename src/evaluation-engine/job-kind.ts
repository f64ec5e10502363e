// What a kind of evaluation job gives the evaluation engine (docs/evaluation-engine.md): its table,
// its statuses, and six steps (load, plan, pending, run a case, store a batch, finish). The engine
// does the rest: leases and fencing, batches and delays, progress and its events, ending the job.
import type { Prisma } from '../shared/db.js';
import type { EvaluationKind } from '../shared/metrics.js';
import type { LeaseDelegate } from './leases.js';

/** The database a step writes with: the service's client or a transaction's. */
export type JobDb = Prisma.TransactionClient;

/** The part of a job model's Prisma delegate the engine uses (`db.evaluation`, `tx.evaluation`). */
export interface JobModel extends LeaseDelegate {
  // Prisma's delegate methods are generic over their arguments; `any` lets any model's fit.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Prisma's generic delegate signatures accept no narrower parameter type
  update(args: any): PromiseLike<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  findUnique(args: any): PromiseLike<unknown>;
}

/** The statuses of a kind's jobs the engine acts on. */
export interface JobStates {
  /** Of jobs that still need work: scans take them, and a run ends only a job still in one. */
  readonly runnable: readonly string[];
  /** Of a run under way. */
  readonly started: string;
  /** Of a run that failed. */
  readonly failed: string;
}

/** How fast a run's cases go out: one batch at a time, retries within each call. */
export interface RunLimits {
  /** Cases run at once; the next batch starts once every case of this one is answered. */
  batchSize: number;
  /** The wait between two batches. */
  delayMs: number;
  /** Retries of a call that failed for a transient reason, `retryDelayMs` apart (Retry-After wins). */
  retries: number;
  retryDelayMs: number;
}

/** What a case is run with: the run's signal (aborted when the job stops) and its limits. */
export interface CaseRun {
  readonly signal: AbortSignal;
  readonly limits: RunLimits;
}

/** A failure a user can act on: the job ends failed with this message and no stack. */
export class JobFailure extends Error {}

export interface JobError {
  message: string;
  stacktrace: string | null;
}

/** A run, planned. */
export interface Planned<Plan> {
  plan: Plan;
  limits: RunLimits;
  /** Fields the job's row gets as the run starts, besides its status. */
  start: Record<string, unknown>;
}

/** What a batch's write stored: cases written (not stored before), of which `errors` with an error. */
export interface StoredBatch {
  written: number;
  errors: number;
}

/**
 * Runs `write` in a transaction that first renews the job's lease, and rolls it back whole when
 * another worker holds the job now; then counts what it stored (progress, metrics).
 */
export type FencedWrite = (write: (tx: JobDb) => Promise<StoredBatch>) => Promise<void>;

/** How a run ends. */
export interface Ending {
  status: string;
  error: JobError | null;
  /** The job's counts as recounted at the end, where cases may be stored by others too (human evaluations' clients). */
  counts?: { done: number; errors: number };
}

export interface JobKind<Row extends { leaseOwner: string | null }, Plan, Case, Outcome> {
  /** Names the kind in `jobs:created` events and in the metrics. */
  readonly name: EvaluationKind;
  /** The jobs' table ("Evaluation"): its rows have `id`, `status`, `statusError`, `leaseOwner` and `leaseExpiresAt`. */
  readonly table: string;
  /** Column values of the rows that are this kind's jobs; other rows of the table are never taken. */
  readonly only?: Readonly<Record<string, string>>;
  /** The table's delegate in `db`, which is the service's client or a transaction. */
  model(db: JobDb): JobModel;
  readonly states: JobStates;
  /**
   * Present for jobs that count their cases in `total`, `done` and `errors`: each stored batch adds
   * to them; with `publish`, each change is an `evaluation:progress` event too.
   */
  readonly progress?: { readonly publish: boolean };
  /** The job's row with what planning needs; null once it is gone. */
  load(id: string): Promise<Row | null>;
  /** What the run needs and its limits; throws a JobFailure when it cannot run. */
  plan(row: Row): Promise<Planned<Plan>>;
  /** The cases still to run, in order, leaving out those stored: a resumed run goes on where it stopped. */
  pending(plan: Plan): AsyncIterable<Case> | Iterable<Case>;
  /** Runs one case; what failed in it belongs in its outcome, and a throw ends the run. */
  runCase(plan: Plan, item: Case, run: CaseRun): Promise<Outcome>;
  /** Stores a batch's outcomes through `fenced`, never twice: a case stored meanwhile is left as it is and not counted. */
  store(plan: Plan, outcomes: Outcome[], fenced: FencedWrite): Promise<void>;
  /** Once every case is stored: how the job ends (a JobFailure thrown fails it). */
  finish(plan: Plan): Promise<Ending>;
  /** Fields the row gets as the run ends, besides its status and error. */
  ended?(): Record<string, unknown>;
  /**
   * Told once the job's row was marked started and once it was ended (`plan` is null when its
   * planning threw): a kind whose progress is followed in its own terms publishes it here.
   */
  changed?(id: string, plan: Plan | null): void;
}
