-- DropIndex
DROP INDEX "Trace_projectId_startTime_idx";

-- CreateTable
CREATE TABLE "TraceModel" (
    "projectId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "model" TEXT NOT NULL,

    PRIMARY KEY ("projectId", "traceId", "model"),
    CONSTRAINT "TraceModel_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "TraceModel_projectId_model_traceId_idx" ON "TraceModel"("projectId", "model", "traceId");

-- CreateIndex
CREATE INDEX "Trace_projectId_startTime_figures_idx" ON "Trace"("projectId", "startTime", "environment", "latency", "errorCount", "cost", "promptTokens", "completionTokens", "totalTokens");

-- CreateIndex
CREATE INDEX "Score_projectId_name_value_traceId_idx" ON "Score"("projectId", "name", "value", "traceId");

-- CreateIndex
CREATE INDEX "Score_projectId_name_stringValue_traceId_idx" ON "Score"("projectId", "name", "stringValue", "traceId");

-- Written by hand: the models of the traces already stored (docs/observability.md#roll-ups).
INSERT INTO "TraceModel" ("projectId", "traceId", "model")
SELECT DISTINCT "projectId", "traceId", "model" FROM "Span" WHERE "model" IS NOT NULL;
