-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "retentionDays" INTEGER;

-- Written by hand, PostgreSQL only: "Span" becomes a table partitioned by day on "startTime", so
-- retention drops whole partitions (docs/database.md#span-partitions). Prisma's schema cannot say
-- so. The key gains "startTime", as every unique key of a partitioned table must. The service
-- creates the partitions from here on (src/observability/partitions.ts); this makes one for each
-- day the spans already stored start on, and moves them.
ALTER TABLE "Span" RENAME TO "Span_unpartitioned";
ALTER TABLE "Span_unpartitioned" DROP CONSTRAINT "Span_projectId_fkey";
ALTER TABLE "Span_unpartitioned" DROP CONSTRAINT "Span_pkey";
DROP INDEX "Span_projectId_spanId_idx";
DROP INDEX "Span_projectId_traceId_parentSpanId_idx";
DROP INDEX "Span_projectId_startTime_idx";
DROP INDEX "Span_projectId_spanKind_startTime_idx";
DROP INDEX "Span_projectId_model_startTime_idx";
DROP INDEX IF EXISTS "Span_name_trgm_idx";

CREATE TABLE "Span" (LIKE "Span_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("startTime");
ALTER TABLE "Span" ADD CONSTRAINT "Span_pkey" PRIMARY KEY ("projectId", "traceId", "spanId", "startTime");
CREATE INDEX "Span_projectId_spanId_idx" ON "Span"("projectId", "spanId");
CREATE INDEX "Span_projectId_traceId_parentSpanId_idx" ON "Span"("projectId", "traceId", "parentSpanId");
CREATE INDEX "Span_projectId_startTime_idx" ON "Span"("projectId", "startTime");
CREATE INDEX "Span_projectId_spanKind_startTime_idx" ON "Span"("projectId", "spanKind", "startTime");
CREATE INDEX "Span_projectId_model_startTime_idx" ON "Span"("projectId", "model", "startTime");
ALTER TABLE "Span" ADD CONSTRAINT "Span_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX "Span_name_trgm_idx" ON "Span" USING gin ("name" gin_trgm_ops);
  END IF;
END $$;

DO $$
DECLARE
  day timestamp;
BEGIN
  FOR day IN SELECT DISTINCT date_trunc('day', "startTime") FROM "Span_unpartitioned" LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "Span" FOR VALUES FROM (%L) TO (%L)',
      'Span_p' || to_char(day, 'YYYYMMDD'), day, day + interval '1 day');
  END LOOP;
END $$;
INSERT INTO "Span" SELECT * FROM "Span_unpartitioned";
DROP TABLE "Span_unpartitioned";
