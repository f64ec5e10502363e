-- The names of a trace's scores on its row (docs/observability.md#roll-ups), so that the trace
-- list's "has (no) score of a name" is a test of the trace's row in the walk of its other filters,
-- rather than a subquery over the scores. Each name is written with "\" as "\\" and "|" as "\p",
-- and ends with "|" after a leading "|": "|quality|thumbs|" holds "|quality|" and no other name's
-- text. Kept by the database on every write of either table: a score's write or deletion changes
-- its trace's names, and a trace that arrives after its scores reads them. SQLite runs one write
-- at a time, so the row triggers see every committed row.

-- AlterTable
ALTER TABLE "Trace" ADD COLUMN "scoreNames" TEXT;

UPDATE "Trace" SET "scoreNames" = (
  SELECT '|' || group_concat(replace(replace(n."name", '\', '\\'), '|', '\p'), '|') || '|'
  FROM (SELECT DISTINCT s."name" FROM "Score" AS s WHERE s."projectId" = "Trace"."projectId" AND s."traceId" = "Trace"."traceId" ORDER BY 1) AS n
) WHERE EXISTS (SELECT 1 FROM "Score" AS s WHERE s."projectId" = "Trace"."projectId" AND s."traceId" = "Trace"."traceId");

-- DropIndex
DROP INDEX "Trace_projectId_startTime_figures_idx";

-- CreateIndex
CREATE INDEX "Trace_projectId_startTime_figures_idx" ON "Trace"("projectId", "startTime", "environment", "latency", "errorCount", "cost", "promptTokens", "completionTokens", "totalTokens", "traceId", "scoreNames");

-- A new score's name joins its trace's names, unless there.
CREATE TRIGGER "Score_traceScoreNames_insert" AFTER INSERT ON "Score" WHEN NEW."traceId" IS NOT NULL
BEGIN
  UPDATE "Trace" SET "scoreNames" = COALESCE("scoreNames", '|') || replace(replace(NEW."name", '\', '\\'), '|', '\p') || '|'
  WHERE "projectId" = NEW."projectId" AND "traceId" = NEW."traceId"
    AND COALESCE(instr("scoreNames", '|' || replace(replace(NEW."name", '\', '\\'), '|', '\p') || '|'), 0) = 0;
END;

-- A deleted score's name leaves its trace's names when no other score of the trace has it.
CREATE TRIGGER "Score_traceScoreNames_delete" AFTER DELETE ON "Score" WHEN OLD."traceId" IS NOT NULL
BEGIN
  UPDATE "Trace" SET "scoreNames" = NULLIF(replace("scoreNames", '|' || replace(replace(OLD."name", '\', '\\'), '|', '\p') || '|', '|'), '|')
  WHERE "projectId" = OLD."projectId" AND "traceId" = OLD."traceId"
    AND instr("scoreNames", '|' || replace(replace(OLD."name", '\', '\\'), '|', '\p') || '|') > 0
    AND NOT EXISTS (SELECT 1 FROM "Score" AS s WHERE s."projectId" = OLD."projectId" AND s."traceId" = OLD."traceId" AND s."name" = OLD."name");
END;

-- A score written again under another name (or, were it ever, another trace): both traces' names again.
CREATE TRIGGER "Score_traceScoreNames_update" AFTER UPDATE OF "projectId", "traceId", "name" ON "Score"
  WHEN NEW."name" IS NOT OLD."name" OR NEW."traceId" IS NOT OLD."traceId" OR NEW."projectId" IS NOT OLD."projectId"
BEGIN
  UPDATE "Trace" SET "scoreNames" = (
    SELECT '|' || group_concat(replace(replace(n."name", '\', '\\'), '|', '\p'), '|') || '|'
    FROM (SELECT DISTINCT s."name" FROM "Score" AS s WHERE s."projectId" = "Trace"."projectId" AND s."traceId" = "Trace"."traceId" ORDER BY 1) AS n
  ) WHERE ("projectId" = OLD."projectId" AND "traceId" = OLD."traceId") OR ("projectId" = NEW."projectId" AND "traceId" = NEW."traceId");
END;

-- A trace arriving after its scores (feedback sent before the exporter flushed) reads their names.
CREATE TRIGGER "Trace_scoreNames_insert" AFTER INSERT ON "Trace"
  WHEN NEW."scoreNames" IS NOT NULL OR EXISTS (SELECT 1 FROM "Score" AS s WHERE s."projectId" = NEW."projectId" AND s."traceId" = NEW."traceId")
BEGIN
  UPDATE "Trace" SET "scoreNames" = (
    SELECT '|' || group_concat(replace(replace(n."name", '\', '\\'), '|', '\p'), '|') || '|'
    FROM (SELECT DISTINCT s."name" FROM "Score" AS s WHERE s."projectId" = NEW."projectId" AND s."traceId" = NEW."traceId" ORDER BY 1) AS n
  ) WHERE "projectId" = NEW."projectId" AND "traceId" = NEW."traceId";
END;

-- The new index's statistics, which its drop took away: without them SQLite's planner took the
-- trace list's walks by other indexes, seconds to minutes over 50,000 traces.
ANALYZE "Trace";
