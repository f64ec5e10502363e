-- AlterTable
ALTER TABLE "Score" ADD COLUMN "traceEnvironment" TEXT;
ALTER TABLE "Score" ADD COLUMN "traceStart" DATETIME;

-- CreateIndex
CREATE INDEX "Score_projectId_name_traceStart_traceEnvironment_dataType_stringValue_value_idx" ON "Score"("projectId", "name", "traceStart", "traceEnvironment", "dataType", "stringValue", "value");

-- The start and environment of a score's trace, kept on the score by the database on every write of
-- either table (docs/scores.md#in-the-trace-list): a score written before its trace gets them when
-- the trace arrives, a trace whose start or environment changes (an earlier span arriving later)
-- passes them on, and a deleted trace takes them away. SQLite runs one write at a time, so the
-- row triggers see every committed row.
UPDATE "Score" SET ("traceStart", "traceEnvironment") = (
  SELECT t."startTime", t."environment" FROM "Trace" AS t WHERE t."projectId" = "Score"."projectId" AND t."traceId" = "Score"."traceId"
) WHERE "traceId" IS NOT NULL;

CREATE TRIGGER "Score_traceStart_insert" AFTER INSERT ON "Score" WHEN NEW."traceId" IS NOT NULL
BEGIN
  UPDATE "Score" SET ("traceStart", "traceEnvironment") = (
    SELECT t."startTime", t."environment" FROM "Trace" AS t WHERE t."projectId" = NEW."projectId" AND t."traceId" = NEW."traceId"
  ) WHERE "projectId" = NEW."projectId" AND "id" = NEW."id";
END;

CREATE TRIGGER "Score_traceStart_update" AFTER UPDATE OF "projectId", "traceId" ON "Score"
  WHEN NEW."traceId" IS NOT OLD."traceId" OR NEW."projectId" IS NOT OLD."projectId"
BEGIN
  UPDATE "Score" SET ("traceStart", "traceEnvironment") = (
    SELECT t."startTime", t."environment" FROM "Trace" AS t WHERE t."projectId" = NEW."projectId" AND t."traceId" = NEW."traceId"
  ) WHERE "projectId" = NEW."projectId" AND "id" = NEW."id";
END;

CREATE TRIGGER "Trace_scores_insert" AFTER INSERT ON "Trace"
BEGIN
  UPDATE "Score" SET "traceStart" = NEW."startTime", "traceEnvironment" = NEW."environment"
  WHERE "projectId" = NEW."projectId" AND "traceId" = NEW."traceId";
END;

CREATE TRIGGER "Trace_scores_update" AFTER UPDATE OF "startTime", "environment" ON "Trace"
  WHEN NEW."startTime" IS NOT OLD."startTime" OR NEW."environment" IS NOT OLD."environment"
BEGIN
  UPDATE "Score" SET "traceStart" = NEW."startTime", "traceEnvironment" = NEW."environment"
  WHERE "projectId" = NEW."projectId" AND "traceId" = NEW."traceId";
END;

CREATE TRIGGER "Trace_scores_delete" AFTER DELETE ON "Trace"
BEGIN
  UPDATE "Score" SET "traceStart" = NULL, "traceEnvironment" = NULL
  WHERE "projectId" = OLD."projectId" AND "traceId" = OLD."traceId" AND "traceStart" IS NOT NULL;
END;
