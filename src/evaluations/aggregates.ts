// The aggregates and totals of a finished evaluation (docs/evaluations.md#totals-and-aggregates):
// per evaluator config the mean of its numeric results with their spread and confidence interval
// (shared/statistics.ts), and the app's cost and latency over the scenarios.
import { aggregate } from '../shared/statistics.js';
import { getEvaluator } from '../evaluators/operations.js';
import { errorResult } from '../evaluators/results.js';
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import type { Prisma } from '../shared/db.js';
import { toJson } from '../shared/json.js';
import { roundCost } from '../shared/money.js';

/** Stores the aggregate of each config (in `configs`) and the cost/latency totals; answers whether a case had an error. */
export async function storeAggregates(db: Prisma.TransactionClient, evaluationId: string, configs: readonly EvaluatorConfig[]): Promise<boolean> {
  const rows = await db.$queryRaw<
    { configId: string; n: bigint | number; errors: bigint | number; sum: number | null; sumsq: number | null; bools: bigint | number }[]
  >`
    SELECT r."evaluatorConfigId" AS "configId",
           COUNT(r."score") AS "n",
           SUM(CASE WHEN r."type" = 'error' THEN 1 ELSE 0 END) AS "errors",
           SUM(r."score") AS "sum",
           SUM(r."score" * r."score") AS "sumsq",
           SUM(CASE WHEN r."type" = 'bool' THEN 1 ELSE 0 END) AS "bools"
    FROM "EvaluationScenarioResult" r JOIN "EvaluationScenario" s ON s."id" = r."scenarioId"
    WHERE s."evaluationId" = ${evaluationId}
    GROUP BY r."evaluatorConfigId"`;
  const byConfig = new Map(rows.map((row) => [row.configId, row]));
  for (const config of configs) {
    const row = byConfig.get(config.id);
    const n = Number(row?.n ?? 0);
    const stats = aggregate(n, Number(row?.errors ?? 0), row?.sum ?? 0, row?.sumsq ?? 0, n > 0 && Number(row?.bools ?? 0) === n);
    const result =
      stats.mean === null
        ? errorResult(`No test case could be scored by ${getEvaluator(config.evaluatorKey)?.name ?? config.evaluatorKey}`)
        : { type: 'number', value: stats.mean, error: null };
    await db.evaluationEvaluator.update({
      where: { evaluationId_evaluatorConfigId: { evaluationId, evaluatorConfigId: config.id } },
      data: {
        aggregate: toJson({ ...result, count: stats.count, errors: stats.errors, stddev: stats.stddev, ci_low: stats.ciLow, ci_high: stats.ciHigh }),
      },
    });
  }
  const totals = await db.evaluationScenario.aggregate({
    where: { evaluationId },
    _avg: { cost: true, latency: true },
    _sum: { cost: true },
  });
  const { errors } = await db.evaluation.update({
    where: { id: evaluationId },
    data: { averageCost: roundCost(totals._avg.cost), totalCost: roundCost(totals._sum.cost), averageLatency: totals._avg.latency },
    select: { errors: true },
  });
  return errors > 0;
}
