-- AlterTable
ALTER TABLE "Trace" ADD COLUMN "variantRevision" INTEGER;

-- CreateIndex
CREATE INDEX "Trace_projectId_variantId_variantRevision_startTime_idx" ON "Trace"("projectId", "variantId", "variantRevision", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_variantName_variantRevision_startTime_idx" ON "Trace"("projectId", "variantName", "variantRevision", "startTime");

-- Traces stored before: the revision their root span names, beside the variant it names.
UPDATE "Trace" SET "variantRevision" = (
  SELECT s."variantRevision" FROM "Span" AS s
  WHERE s."projectId" = "Trace"."projectId" AND s."traceId" = "Trace"."traceId" AND s."spanId" = "Trace"."rootSpanId"
)
WHERE "rootSpanId" IS NOT NULL AND ("variantId" IS NOT NULL OR "variantName" IS NOT NULL);
