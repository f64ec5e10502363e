-- The names of a trace's scores on its row (docs/observability.md#roll-ups), so that the trace
-- list's "has (no) score of a name" is a test of the trace's row in the walk of its other filters,
-- rather than a subquery over the scores. Each name is written with "\" as "\\" and "|" as "\p",
-- and ends with "|" after a leading "|": "|quality|thumbs|" holds "|quality|" and no other name's
-- text. Kept by the database on every write of either table: a score's write or deletion changes
-- its trace's names, and a trace that arrives after its scores reads them.

-- AlterTable
ALTER TABLE "Trace" ADD COLUMN     "scoreNames" TEXT;

-- The names of the trace (projectId, traceId) in "Score", as the column holds them.
CREATE FUNCTION "trace_score_names"(project TEXT, trace TEXT) RETURNS TEXT LANGUAGE sql STABLE AS $$
  SELECT '|' || string_agg(replace(replace(n."name", '\', '\\'), '|', '\p'), '|' ORDER BY n."name") || '|'
  FROM (SELECT DISTINCT s."name" FROM "Score" AS s WHERE s."projectId" = project AND s."traceId" = trace) AS n
$$;

UPDATE "Trace" AS t SET "scoreNames" = "trace_score_names"(t."projectId", t."traceId")
WHERE EXISTS (SELECT 1 FROM "Score" AS s WHERE s."projectId" = t."projectId" AND s."traceId" = t."traceId");

-- DropIndex
DROP INDEX "Trace_projectId_startTime_figures_idx";

-- CreateIndex
CREATE INDEX "Trace_projectId_startTime_figures_idx" ON "Trace"("projectId", "startTime", "environment", "latency", "errorCount", "cost", "promptTokens", "completionTokens", "totalTokens", "traceId", "scoreNames");

-- Writes run at once here. A statement's scores change their traces' names after the statement,
-- under the traces' ingestion locks (pg_advisory_xact_lock of "trace:<project>:<trace>",
-- shared/postgres-sql.ts lockKeys, in its order; held already by every writer of scores, taken
-- before their first row, so no deadlock with ingestion: docs/scores.md#in-the-trace-list), each
-- trace's names read again from what is committed then: two transactions adding and deleting
-- scores of a name of one trace take turns, and the second sees the first's.
CREATE FUNCTION "trace_score_names_settle"(projects TEXT[], traces TEXT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(h) FROM (
    SELECT DISTINCT hashtextextended('trace:' || k.p || ':' || k.t, 0) AS h FROM unnest(projects, traces) AS k(p, t) WHERE k.t IS NOT NULL ORDER BY 1
  ) AS locks;
  UPDATE "Trace" AS t SET "scoreNames" = n."names"
  FROM (
    SELECT k.p, k.t, "trace_score_names"(k.p, k.t) AS "names"
    FROM (SELECT DISTINCT p, t FROM unnest(projects, traces) AS k(p, t) WHERE t IS NOT NULL) AS k
  ) AS n
  WHERE t."projectId" = n.p AND t."traceId" = n.t AND t."scoreNames" IS DISTINCT FROM n."names";
END $$;

CREATE FUNCTION "Score_trace_score_names"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  projects TEXT[];
  traces TEXT[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n."projectId"), array_agg(n."traceId") INTO projects, traces FROM new_scores AS n WHERE n."traceId" IS NOT NULL;
  ELSE
    SELECT array_agg(o."projectId"), array_agg(o."traceId") INTO projects, traces FROM old_scores AS o WHERE o."traceId" IS NOT NULL;
  END IF;
  IF traces IS NOT NULL THEN
    PERFORM "trace_score_names_settle"(projects, traces);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Score_trace_score_names_insert" AFTER INSERT ON "Score"
  REFERENCING NEW TABLE AS new_scores FOR EACH STATEMENT EXECUTE FUNCTION "Score_trace_score_names"();

CREATE TRIGGER "Score_trace_score_names_delete" AFTER DELETE ON "Score"
  REFERENCING OLD TABLE AS old_scores FOR EACH STATEMENT EXECUTE FUNCTION "Score_trace_score_names"();

-- A score written again under another name (or, were it ever, another trace): both traces' names again.
CREATE FUNCTION "Score_trace_score_names_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "trace_score_names_settle"(ARRAY[OLD."projectId", NEW."projectId"], ARRAY[OLD."traceId", NEW."traceId"]);
  RETURN NULL;
END $$;

CREATE TRIGGER "Score_trace_score_names_update" AFTER UPDATE OF "projectId", "traceId", "name" ON "Score"
  FOR EACH ROW WHEN (NEW."name" IS DISTINCT FROM OLD."name" OR NEW."traceId" IS DISTINCT FROM OLD."traceId" OR NEW."projectId" IS DISTINCT FROM OLD."projectId")
  EXECUTE FUNCTION "Score_trace_score_names_update"();

-- A trace arriving after its scores (feedback sent before the exporter flushed) reads their names;
-- its writer holds the trace's lock, as the scores' writers do.
CREATE FUNCTION "Trace_score_names"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."scoreNames" IS NOT NULL OR EXISTS (SELECT 1 FROM "Score" AS s WHERE s."projectId" = NEW."projectId" AND s."traceId" = NEW."traceId") THEN
    UPDATE "Trace" SET "scoreNames" = "trace_score_names"(NEW."projectId", NEW."traceId")
    WHERE "projectId" = NEW."projectId" AND "traceId" = NEW."traceId";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Trace_score_names" AFTER INSERT ON "Trace" FOR EACH ROW EXECUTE FUNCTION "Trace_score_names"();

-- Statistics of the new column, before the trace list plans with it.
ANALYZE "Trace";
