-- AlterTable
ALTER TABLE "Score" ADD COLUMN     "traceEnvironment" TEXT,
ADD COLUMN     "traceStart" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Score_projectId_name_traceStart_traceEnvironment_dataType_s_idx" ON "Score"("projectId", "name", "traceStart", "traceEnvironment", "dataType", "stringValue", "value");

-- The start and environment of a score's trace, kept on the score by the database on every write of
-- either table (docs/scores.md#in-the-trace-list): a score written before its trace gets them when
-- the trace arrives, a trace whose start or environment changes (an earlier span arriving later)
-- passes them on, and a deleted trace takes them away.
UPDATE "Score" SET ("traceStart", "traceEnvironment") = (
  SELECT t."startTime", t."environment" FROM "Trace" AS t WHERE t."projectId" = "Score"."projectId" AND t."traceId" = "Score"."traceId"
) WHERE "traceId" IS NOT NULL;

-- A new score reads its trace's start as it is written (no second version of the row).
CREATE FUNCTION "Score_trace_start"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."traceId" IS NULL THEN
    NEW."traceStart" := NULL;
    NEW."traceEnvironment" := NULL;
  ELSIF TG_OP = 'INSERT' OR NEW."traceId" IS DISTINCT FROM OLD."traceId" OR NEW."projectId" IS DISTINCT FROM OLD."projectId" THEN
    SELECT t."startTime", t."environment" INTO NEW."traceStart", NEW."traceEnvironment"
    FROM "Trace" AS t WHERE t."projectId" = NEW."projectId" AND t."traceId" = NEW."traceId";
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "Score_trace_start" BEFORE INSERT OR UPDATE OF "projectId", "traceId" ON "Score"
  FOR EACH ROW EXECUTE FUNCTION "Score_trace_start"();

-- Writes run at once here: a trace's batch may commit between a new score's read of it and the
-- score's commit, unseen by either. Every writer of a trace holds its ingestion lock
-- (pg_advisory_xact_lock of "trace:<project>:<trace>", shared/postgres-sql.ts lockKeys); after the
-- statement, the new scores take those locks too (all at once, in lockKeys' order, so no deadlock)
-- and read their traces again, committed now, rewriting the few whose trace changed meanwhile.
CREATE FUNCTION "Score_trace_start_settle"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(h) FROM (
    SELECT DISTINCT hashtextextended('trace:' || n."projectId" || ':' || n."traceId", 0) AS h FROM new_scores AS n WHERE n."traceId" IS NOT NULL ORDER BY 1
  ) AS locks;
  UPDATE "Score" AS s SET "traceStart" = t."startTime", "traceEnvironment" = t."environment"
  FROM new_scores AS n LEFT JOIN "Trace" AS t ON t."projectId" = n."projectId" AND t."traceId" = n."traceId"
  WHERE n."traceId" IS NOT NULL AND s."projectId" = n."projectId" AND s."id" = n."id"
    AND (s."traceStart" IS DISTINCT FROM t."startTime" OR s."traceEnvironment" IS DISTINCT FROM t."environment");
  RETURN NULL;
END $$;

CREATE TRIGGER "Score_trace_start_settle" AFTER INSERT ON "Score"
  REFERENCING NEW TABLE AS new_scores FOR EACH STATEMENT EXECUTE FUNCTION "Score_trace_start_settle"();

CREATE FUNCTION "Trace_scores"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "Score" SET "traceStart" = NULL, "traceEnvironment" = NULL
    WHERE "projectId" = OLD."projectId" AND "traceId" = OLD."traceId" AND "traceStart" IS NOT NULL;
    RETURN OLD;
  END IF;
  IF TG_OP = 'INSERT' OR NEW."startTime" IS DISTINCT FROM OLD."startTime" OR NEW."environment" IS DISTINCT FROM OLD."environment" THEN
    UPDATE "Score" SET "traceStart" = NEW."startTime", "traceEnvironment" = NEW."environment"
    WHERE "projectId" = NEW."projectId" AND "traceId" = NEW."traceId";
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "Trace_scores" AFTER INSERT OR UPDATE OF "startTime", "environment" OR DELETE ON "Trace"
  FOR EACH ROW EXECUTE FUNCTION "Trace_scores"();
