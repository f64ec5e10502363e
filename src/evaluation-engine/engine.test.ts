// The evaluation engine on its own (docs/evaluation-engine.md), with a job kind made up for the test
// over a real database: its jobs are Evaluation rows (the service's engines do not run here), a case
// is a position below the row's `total`, and its outcome is stored as an EvaluationScenario. What the
// engine owns is checked through it: batches and their delay, resuming, progress and its events,
// fencing, failures, and a kind that keeps no counts (as online evaluation rules will).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGate, type Gate, sleep } from '../../test/helpers/endpoints.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/server.js';
import type { Evaluation } from '../generated/prisma/client.js';
import { type Database, openDatabase } from '../shared/db.js';
import { createAssayEvents } from '../shared/events.js';
import { Metrics } from '../shared/metrics.js';
import { EvaluationEngine } from './engine.js';
import type { EvaluationProgress } from './events.js';
import { type CaseRun, type Ending, type FencedWrite, JobFailure, type JobDb, type JobKind, type Planned, type RunLimits } from './job-kind.js';
import { EVALUATION_JOB_STATES, UNFINISHED } from './states.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-engine-'));
let testDatabase: TestDatabase;
let database: Database;
let services: ConstructorParameters<typeof EvaluationEngine>[0];
let projectId: string;
let appId: string;

beforeAll(async () => {
  testDatabase = await createTestDatabase(dir);
  database = await openDatabase({ url: testDatabase.env.DATABASE_URL });
  services = { db: database.db, sql: database.sql, events: createAssayEvents(), metrics: new Metrics() };
  projectId = (await database.db.project.create({ data: { name: 'engine' } })).id;
  appId = (await database.db.app.create({ data: { projectId, name: 'engine' } })).id;
});

afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  position: number;
  error: boolean;
}

/** How the made-up kind behaves in one test. */
interface Behaviour {
  limits?: Partial<RunLimits>;
  /** Whether the kind counts its cases (the engine's progress); the default does, and publishes them. */
  progress?: { publish: boolean };
  /** Plays one case; by default it answers at once, without error. */
  runCase?: (position: number, run: CaseRun) => Promise<Outcome>;
  /** Fails the planning of a job. */
  plan?: (row: Evaluation) => void;
}

/** A job kind whose cases are the positions below its row's `total`, stored as scenarios. */
function countingJobs(behaviour: Behaviour = {}): JobKind<Evaluation, Evaluation, number, Outcome> {
  return {
    name: 'evaluation',
    table: 'Evaluation',
    states: EVALUATION_JOB_STATES,
    progress: 'progress' in behaviour ? behaviour.progress : { publish: true },
    model: (db: JobDb) => db.evaluation,
    load: (id) => database.db.evaluation.findUnique({ where: { id } }),
    plan: (row): Promise<Planned<Evaluation>> => {
      behaviour.plan?.(row);
      return Promise.resolve({ plan: row, limits: { batchSize: 10, delayMs: 0, retries: 0, retryDelayMs: 0, ...behaviour.limits }, start: {} });
    },
    pending: async function* (row) {
      const stored = new Set((await database.db.evaluationScenario.findMany({ where: { evaluationId: row.id } })).map((scenario) => scenario.position));
      for (let position = 0; position < row.total; position++) if (!stored.has(position)) yield position;
    },
    runCase: (_row, position, run) => behaviour.runCase?.(position, run) ?? Promise.resolve({ position, error: false }),
    store: (row: Evaluation, outcomes: Outcome[], fenced: FencedWrite) =>
      fenced(async (tx) => {
        for (const { position } of outcomes) {
          await tx.evaluationScenario.create({
            data: { projectId, evaluationId: row.id, position, inputs: [], output: { type: 'text', value: 'ok', error: null }, correctAnswers: [] },
          });
        }
        return { written: outcomes.length, errors: outcomes.filter((outcome) => outcome.error).length };
      }),
    finish: async (row): Promise<Ending> => {
      const { errors } = await database.db.evaluation.findUniqueOrThrow({ where: { id: row.id } });
      return { status: errors > 0 ? 'EVALUATION_FINISHED_WITH_ERRORS' : 'EVALUATION_FINISHED', error: null };
    },
  };
}

let engine: EvaluationEngine<Evaluation, Evaluation, number, Outcome> | undefined;

afterEach(async () => {
  await engine?.stop();
  engine = undefined;
});

function startEngine(behaviour?: Behaviour) {
  engine = new EvaluationEngine(services, countingJobs(behaviour), { leaseMs: 30_000, concurrency: 2 }, pino({ level: 'silent' }));
  engine.start();
}

/** A job of `total` cases, waiting to be run (a started engine sees it at `wake`). */
async function createJob(total: number, variantName = 'variant'): Promise<string> {
  const row = await database.db.evaluation.create({
    data: { projectId, appId, variantId: 'variant', variantName, variantRevisionId: 'revision', revision: 1, rateLimit: {}, total },
  });
  return row.id;
}

function wake(): void {
  services.events.publish('jobs:created', 'evaluation');
}

async function waitForEnd(id: string): Promise<Evaluation> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await database.db.evaluation.findUniqueOrThrow({ where: { id } });
    if (!(UNFINISHED as string[]).includes(row.status) && row.leaseOwner === null) return row;
    if (Date.now() > deadline) throw new Error(`job ${id} did not end: ${row.status}`);
    await sleep(20);
  }
}

async function storedPositions(id: string): Promise<number[]> {
  const scenarios = await database.db.evaluationScenario.findMany({ where: { evaluationId: id }, orderBy: { position: 'asc' } });
  return scenarios.map((scenario) => scenario.position);
}

/** Every `evaluation:progress` event of job `id` from now on. */
function progressEvents(id: string): EvaluationProgress[] {
  const seen: EvaluationProgress[] = [];
  void (async () => {
    for await (const progress of services.events.subscribe('evaluation:progress', id)) seen.push(progress);
  })();
  return seen;
}

describe('the evaluation engine', () => {
  it('runs every pending case once, in batches with their delay, counts and publishes its progress, and ends as finish says', async () => {
    const calls: { position: number; at: number }[] = [];
    const id = await createJob(5);
    const events = progressEvents(id);
    startEngine({
      limits: { batchSize: 2, delayMs: 200 },
      runCase: async (position) => {
        calls.push({ position, at: Date.now() });
        await sleep(20);
        return { position, error: position === 3 };
      },
    });
    const ended = await waitForEnd(id);

    expect({ status: ended.status, done: ended.done, errors: ended.errors, statusError: ended.statusError }).toEqual({
      status: 'EVALUATION_FINISHED_WITH_ERRORS',
      done: 5,
      errors: 1,
      statusError: null,
    });
    expect(await storedPositions(id)).toEqual([0, 1, 2, 3, 4]);
    // Batches [0, 1], [2, 3], [4], each after the delay that follows the one before.
    expect(calls.map((call) => call.position)).toEqual([0, 1, 2, 3, 4]);
    const startOf = (position: number) => calls.find((call) => call.position === position)!.at;
    expect(startOf(2) - startOf(1)).toBeGreaterThanOrEqual(200);
    expect(startOf(4) - startOf(3)).toBeGreaterThanOrEqual(200);
    expect(startOf(1) - startOf(0)).toBeLessThan(100);
    // Started, a count per stored batch (the first read may come after it), then the end.
    await sleep(50);
    const whileRunning = events.filter((event) => event.status === 'EVALUATION_STARTED');
    expect(whileRunning.map((event) => event.done).sort((a, b) => a - b)).toEqual([0, 2, 4, 5]);
    expect(whileRunning.find((event) => event.done === 0)).toEqual({ evaluation_id: id, status: 'EVALUATION_STARTED', total: 5, done: 0, errors: 0 });
    expect(events.at(-1)).toEqual({ evaluation_id: id, status: 'EVALUATION_FINISHED_WITH_ERRORS', total: 5, done: 5, errors: 1 });
  });

  it('resumes a job: only the cases not stored run', async () => {
    const calls: number[] = [];
    const id = await createJob(5);
    for (const position of [0, 2]) {
      await database.db.evaluationScenario.create({
        data: { projectId, evaluationId: id, position, inputs: [], output: { type: 'text', value: 'before', error: null }, correctAnswers: [] },
      });
    }
    await database.db.evaluation.update({ where: { id }, data: { status: 'EVALUATION_STARTED', done: 2 } });
    startEngine({
      runCase: (position) => {
        calls.push(position);
        return Promise.resolve({ position, error: false });
      },
    });
    const ended = await waitForEnd(id);
    expect(calls).toEqual([1, 3, 4]);
    expect({ status: ended.status, done: ended.done }).toEqual({ status: 'EVALUATION_FINISHED', done: 5 });
    expect(await storedPositions(id)).toEqual([0, 1, 2, 3, 4]);
  });

  it('stores nothing for a worker whose lease another worker took over, and does not end the job', async () => {
    const gate: Gate = createGate();
    let called = 0;
    startEngine({
      runCase: async (position) => {
        called++;
        await gate.wait();
        return { position, error: false };
      },
    });
    const id = await createJob(2);
    wake();
    while (called < 2) await sleep(10);
    await database.db.evaluation.update({ where: { id }, data: { leaseOwner: 'another worker', leaseExpiresAt: new Date(Date.now() + 60_000) } });
    gate.open();
    // The metrics' gauge reads how many runs the engine has under way.
    const running = async () => Number(/^assay_evaluations_running\{kind="evaluation"\} (\d+)$/m.exec(await services.metrics.registry.metrics())?.[1]);
    while ((await running()) > 0) await sleep(10);
    expect(await storedPositions(id)).toEqual([]);
    const row = await database.db.evaluation.findUniqueOrThrow({ where: { id } });
    expect({ status: row.status, done: row.done, leaseOwner: row.leaseOwner }).toEqual({ status: 'EVALUATION_STARTED', done: 0, leaseOwner: 'another worker' });
    await database.db.evaluation.update({ where: { id }, data: { status: 'EVALUATION_CANCELLED', leaseOwner: null, leaseExpiresAt: null } });
  });

  it('fails a job that throws: a JobFailure with its message alone, anything else as an internal error with its stack', async () => {
    startEngine({
      plan: (row) => {
        if (row.variantName === 'unplannable') throw new JobFailure('The variant is gone');
      },
      runCase: (position) => (position === 1 ? Promise.reject(new Error('the case broke')) : Promise.resolve({ position, error: false })),
    });
    const unplannable = await createJob(1, 'unplannable');
    const broken = await createJob(2);
    wake();
    const refused = await waitForEnd(unplannable);
    expect({ status: refused.status, statusError: refused.statusError }).toEqual({
      status: 'EVALUATION_FAILED',
      statusError: { message: 'The variant is gone', stacktrace: null },
    });
    const failed = await waitForEnd(broken);
    expect(failed.status).toBe('EVALUATION_FAILED');
    expect(failed.statusError).toMatchObject({ message: 'The job stopped on an internal error: the case broke' });
    expect((failed.statusError as { stacktrace: string }).stacktrace).toContain('the case broke');
    // Its batch was never stored.
    expect(await storedPositions(broken)).toEqual([]);
  });

  it('leaves the counts alone and publishes nothing for a kind that keeps none', async () => {
    const id = await createJob(3);
    const events = progressEvents(id);
    startEngine({ progress: undefined });
    const ended = await waitForEnd(id);
    expect({ status: ended.status, done: ended.done, errors: ended.errors }).toEqual({ status: 'EVALUATION_FINISHED', done: 0, errors: 0 });
    expect(await storedPositions(id)).toEqual([0, 1, 2]);
    await sleep(50);
    expect(events).toEqual([]);
  });
});
