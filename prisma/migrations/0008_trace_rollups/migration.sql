-- DropIndex
DROP INDEX "Trace_projectId_startTime_idx";

-- DropIndex
DROP INDEX "Trace_projectId_latency_idx";

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
CREATE INDEX "Trace_projectId_startTime_figures_idx" ON "Trace"("projectId", "startTime", "environment", "latency", "errorCount", "cost", "promptTokens", "completionTokens", "totalTokens", "traceId");

-- CreateIndex
CREATE INDEX "Trace_projectId_latency_environment_startTime_idx" ON "Trace"("projectId", "latency", "environment", "startTime");

-- CreateIndex
CREATE INDEX "Score_projectId_name_value_traceId_dataType_stringValue_idx" ON "Score"("projectId", "name", "value", "traceId", "dataType", "stringValue");

-- CreateIndex
CREATE INDEX "Score_projectId_name_stringValue_traceId_dataType_idx" ON "Score"("projectId", "name", "stringValue", "traceId", "dataType");

-- Written by hand: the models of the traces already stored (docs/observability.md#roll-ups).
INSERT INTO "TraceModel" ("projectId", "traceId", "model")
SELECT DISTINCT "projectId", "traceId", "model" FROM "Span" WHERE "model" IS NOT NULL;
