// The work a hook of ingestion (Services.tracesStoredHooks) starts: the ids told are gathered per
// project and worked on one project at a time, later and apart from the ingestion request that
// told them, so that ingestion is never slowed or refused by it. A failed batch is logged, never
// thrown back. Online evaluation's planner and the external runs' trace follower use it.
import type { FastifyBaseLogger } from 'fastify';

export class ProjectQueue {
  private readonly waiting = new Map<string, Set<string>>();
  private draining: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly work: (projectId: string, ids: string[]) => Promise<unknown>,
    private readonly log: FastifyBaseLogger,
    /** What the log says failed. */
    private readonly what: string,
    /** Awaited before each project's work, while more ids gather (the planner waits there for ingestion to be quiet). */
    private readonly before?: () => Promise<void>,
  ) {}

  /** Remembers the ids and returns at once: a hook's signature. */
  readonly notify = (projectId: string, ids: string[]): void => {
    if (this.stopped) return;
    let waiting = this.waiting.get(projectId);
    if (!waiting) this.waiting.set(projectId, (waiting = new Set()));
    for (const id of ids) waiting.add(id);
    this.draining ??= this.drain().finally(() => (this.draining = null));
  };

  private async drain(): Promise<void> {
    // Let the request that told us end first.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.waiting.size > 0 && !this.stopped) {
      await this.before?.();
      const [projectId, ids] = this.waiting.entries().next().value!;
      this.waiting.delete(projectId);
      await this.work(projectId, [...ids]).catch((error: unknown) => this.log.error({ err: error, projectId, ids: ids.size }, this.what));
    }
  }

  /** Works through what was told already, then stops listening. */
  async stop(): Promise<void> {
    await this.draining;
    this.stopped = true;
  }
}
