-- CreateTable
CREATE TABLE "Project" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "App" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "App_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Variant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Variant_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Variant_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "VariantRevision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "variantId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "uri" TEXT,
    "parameters" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "VariantRevision_variantId_fkey" FOREIGN KEY ("variantId") REFERENCES "Variant" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Testset" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT,
    "name" TEXT NOT NULL,
    "columns" JSONB NOT NULL,
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Testset_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Testset_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TestsetRow" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "testsetId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "data" JSONB NOT NULL,
    CONSTRAINT "TestsetRow_testsetId_fkey" FOREIGN KEY ("testsetId") REFERENCES "Testset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EvaluatorConfig" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "evaluatorKey" TEXT NOT NULL,
    "settingsValues" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "EvaluatorConfig_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "EvaluatorConfig_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Evaluation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL,
    "variantName" TEXT NOT NULL,
    "variantRevisionId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "testsetId" TEXT,
    "testsetName" TEXT,
    "status" TEXT NOT NULL DEFAULT 'EVALUATION_INITIALIZED',
    "statusError" JSONB,
    "correctAnswerColumn" TEXT,
    "rateLimit" JSONB NOT NULL,
    "providerKeys" JSONB,
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "averageCost" REAL,
    "totalCost" REAL,
    "averageLatency" REAL,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Evaluation_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Evaluation_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EvaluationEvaluator" (
    "evaluationId" TEXT NOT NULL,
    "evaluatorConfigId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "aggregate" JSONB,

    PRIMARY KEY ("evaluationId", "evaluatorConfigId"),
    CONSTRAINT "EvaluationEvaluator_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "EvaluationEvaluator_evaluatorConfigId_fkey" FOREIGN KEY ("evaluatorConfigId") REFERENCES "EvaluatorConfig" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EvaluationScenario" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "testsetRowId" TEXT,
    "inputs" JSONB NOT NULL,
    "output" JSONB NOT NULL,
    "cost" REAL,
    "latency" REAL,
    "correctAnswers" JSONB NOT NULL,
    "isPinned" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT NOT NULL DEFAULT '',
    "traceId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "EvaluationScenario_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EvaluationScenarioResult" (
    "scenarioId" TEXT NOT NULL,
    "evaluatorConfigId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "value" JSONB,
    "error" JSONB,
    "score" REAL,

    PRIMARY KEY ("scenarioId", "evaluatorConfigId"),
    CONSTRAINT "EvaluationScenarioResult_scenarioId_fkey" FOREIGN KEY ("scenarioId") REFERENCES "EvaluationScenario" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "HumanEvaluation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "evaluationType" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'EVALUATION_INITIALIZED',
    "statusError" JSONB,
    "variantIds" JSONB NOT NULL,
    "variantNames" JSONB NOT NULL,
    "variantRevisionIds" JSONB NOT NULL,
    "revisions" JSONB NOT NULL,
    "testsetId" TEXT NOT NULL,
    "testsetName" TEXT NOT NULL,
    "inputs" JSONB NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "HumanEvaluation_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "HumanEvaluation_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "HumanEvaluationScenario" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "humanEvaluationId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "testsetRowId" TEXT,
    "inputs" JSONB NOT NULL,
    "outputs" JSONB NOT NULL,
    "correctAnswer" TEXT,
    "vote" TEXT,
    "score" INTEGER,
    "isPinned" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT NOT NULL DEFAULT '',
    "displayOrder" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "HumanEvaluationScenario_humanEvaluationId_fkey" FOREIGN KEY ("humanEvaluationId") REFERENCES "HumanEvaluation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "HumanJudgement" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scenarioId" TEXT NOT NULL,
    "judge" TEXT NOT NULL,
    "vote" TEXT,
    "score" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "HumanJudgement_scenarioId_fkey" FOREIGN KEY ("scenarioId") REFERENCES "HumanEvaluationScenario" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Span" (
    "projectId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "parentSpanId" TEXT,
    "name" TEXT NOT NULL,
    "spanKind" TEXT NOT NULL,
    "statusCode" TEXT NOT NULL,
    "statusMessage" TEXT,
    "startTimeUnixNano" BIGINT NOT NULL,
    "endTimeUnixNano" BIGINT NOT NULL,
    "startTime" DATETIME NOT NULL,
    "endTime" DATETIME NOT NULL,
    "latency" REAL NOT NULL,
    "inputs" JSONB,
    "outputs" JSONB,
    "internals" JSONB,
    "config" JSONB,
    "environment" TEXT,
    "userId" TEXT,
    "sessionId" TEXT,
    "appId" TEXT,
    "variantId" TEXT,
    "variantName" TEXT,
    "variantRevision" INTEGER,
    "model" TEXT,
    "promptTokens" INTEGER,
    "completionTokens" INTEGER,
    "totalTokens" INTEGER,
    "cachedTokens" INTEGER,
    "cost" REAL,
    "costSource" TEXT,
    "attributes" JSONB NOT NULL,
    "events" JSONB,
    "links" JSONB,
    "resource" JSONB,
    "scope" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("projectId", "traceId", "spanId"),
    CONSTRAINT "Span_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Trace" (
    "projectId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "rootSpanId" TEXT,
    "name" TEXT,
    "startTime" DATETIME NOT NULL,
    "endTime" DATETIME NOT NULL,
    "latency" REAL NOT NULL,
    "spanCount" INTEGER NOT NULL,
    "errorCount" INTEGER NOT NULL,
    "promptTokens" INTEGER,
    "completionTokens" INTEGER,
    "totalTokens" INTEGER,
    "cost" REAL,
    "spanKind" TEXT,
    "statusCode" TEXT,
    "environment" TEXT,
    "userId" TEXT,
    "sessionId" TEXT,
    "appId" TEXT,
    "variantId" TEXT,
    "variantName" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("projectId", "traceId"),
    CONSTRAINT "Trace_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ModelPrice" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input" REAL NOT NULL,
    "output" REAL NOT NULL,
    "cachedInput" REAL,
    "effectiveFrom" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ModelPrice_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Project_name_key" ON "Project"("name");

-- CreateIndex
CREATE UNIQUE INDEX "App_projectId_name_key" ON "App"("projectId", "name");

-- CreateIndex
CREATE INDEX "Variant_projectId_idx" ON "Variant"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "Variant_appId_name_key" ON "Variant"("appId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "VariantRevision_variantId_revision_key" ON "VariantRevision"("variantId", "revision");

-- CreateIndex
CREATE INDEX "Testset_projectId_idx" ON "Testset"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "TestsetRow_testsetId_position_key" ON "TestsetRow"("testsetId", "position");

-- CreateIndex
CREATE INDEX "EvaluatorConfig_projectId_idx" ON "EvaluatorConfig"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "EvaluatorConfig_appId_name_key" ON "EvaluatorConfig"("appId", "name");

-- CreateIndex
CREATE INDEX "Evaluation_projectId_appId_idx" ON "Evaluation"("projectId", "appId");

-- CreateIndex
CREATE INDEX "Evaluation_status_idx" ON "Evaluation"("status");

-- CreateIndex
CREATE UNIQUE INDEX "EvaluationScenario_evaluationId_position_key" ON "EvaluationScenario"("evaluationId", "position");

-- CreateIndex
CREATE INDEX "HumanEvaluation_projectId_appId_idx" ON "HumanEvaluation"("projectId", "appId");

-- CreateIndex
CREATE UNIQUE INDEX "HumanEvaluationScenario_humanEvaluationId_position_key" ON "HumanEvaluationScenario"("humanEvaluationId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "HumanJudgement_scenarioId_judge_key" ON "HumanJudgement"("scenarioId", "judge");

-- CreateIndex
CREATE INDEX "Span_projectId_spanId_idx" ON "Span"("projectId", "spanId");

-- CreateIndex
CREATE INDEX "Span_projectId_traceId_parentSpanId_idx" ON "Span"("projectId", "traceId", "parentSpanId");

-- CreateIndex
CREATE INDEX "Span_projectId_startTime_idx" ON "Span"("projectId", "startTime");

-- CreateIndex
CREATE INDEX "Span_projectId_spanKind_startTime_idx" ON "Span"("projectId", "spanKind", "startTime");

-- CreateIndex
CREATE INDEX "Span_projectId_model_startTime_idx" ON "Span"("projectId", "model", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_startTime_idx" ON "Trace"("projectId", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_userId_startTime_idx" ON "Trace"("projectId", "userId", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_sessionId_startTime_idx" ON "Trace"("projectId", "sessionId", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_environment_startTime_idx" ON "Trace"("projectId", "environment", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_appId_startTime_idx" ON "Trace"("projectId", "appId", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_variantId_startTime_idx" ON "Trace"("projectId", "variantId", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_statusCode_startTime_idx" ON "Trace"("projectId", "statusCode", "startTime");

-- CreateIndex
CREATE INDEX "Trace_projectId_latency_idx" ON "Trace"("projectId", "latency");

-- CreateIndex
CREATE INDEX "Trace_projectId_cost_idx" ON "Trace"("projectId", "cost");

-- CreateIndex
CREATE UNIQUE INDEX "ModelPrice_projectId_model_effectiveFrom_key" ON "ModelPrice"("projectId", "model", "effectiveFrom");
