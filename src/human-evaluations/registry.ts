// How operations reach the runner of their service without an event topic: the runner registers
// itself under its database client when it starts. No runner (a test without one, a process
// being stopped): the calls do nothing, and the runner's periodic scan picks the work up later.
import type { RequestContext } from '../shared/context.js';

export interface HumanRunnerHandle {
  /** Look for work now (new evaluations, a status set back to INITIALIZED). */
  wake(): void;
  /** Stop generating this evaluation's outputs now (its status changed, or it was deleted). */
  abort(evaluationId: string): void;
}

const runners = new WeakMap<object, HumanRunnerHandle>();

export function registerHumanRunner(db: object, runner: HumanRunnerHandle): void {
  runners.set(db, runner);
}

export function unregisterHumanRunner(db: object, runner: HumanRunnerHandle): void {
  if (runners.get(db) === runner) runners.delete(db);
}

export function wakeHumanRunner(ctx: Pick<RequestContext, 'db'>): void {
  runners.get(ctx.db)?.wake();
}

export function abortHumanRun(ctx: Pick<RequestContext, 'db'>, evaluationId: string): void {
  runners.get(ctx.db)?.abort(evaluationId);
}
