-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "VariantKind" AS ENUM ('endpoint', 'prompt');

-- CreateEnum
CREATE TYPE "EvaluationStatus" AS ENUM ('EVALUATION_INITIALIZED', 'EVALUATION_STARTED', 'EVALUATION_FINISHED', 'EVALUATION_FINISHED_WITH_ERRORS', 'EVALUATION_FAILED', 'EVALUATION_AGGREGATION_FAILED', 'EVALUATION_CANCELLED');

-- CreateEnum
CREATE TYPE "HumanEvaluationType" AS ENUM ('human_a_b_testing', 'single_model_test');

-- CreateTable
CREATE TABLE "Project" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Project_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "App" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "App_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Variant" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "VariantKind" NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Variant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VariantRevision" (
    "id" TEXT NOT NULL,
    "variantId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "uri" TEXT,
    "parameters" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VariantRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Testset" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "appId" TEXT,
    "name" TEXT NOT NULL,
    "columns" JSONB NOT NULL,
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Testset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TestsetRow" (
    "id" TEXT NOT NULL,
    "testsetId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "data" JSONB NOT NULL,

    CONSTRAINT "TestsetRow_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluatorConfig" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "evaluatorKey" TEXT NOT NULL,
    "settingsValues" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EvaluatorConfig_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Evaluation" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL,
    "variantName" TEXT NOT NULL,
    "variantRevisionId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "testsetId" TEXT,
    "testsetName" TEXT,
    "status" "EvaluationStatus" NOT NULL DEFAULT 'EVALUATION_INITIALIZED',
    "statusError" JSONB,
    "correctAnswerColumn" TEXT,
    "rateLimit" JSONB NOT NULL,
    "providerKeys" JSONB,
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "averageCost" DOUBLE PRECISION,
    "totalCost" DOUBLE PRECISION,
    "averageLatency" DOUBLE PRECISION,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Evaluation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluationEvaluator" (
    "evaluationId" TEXT NOT NULL,
    "evaluatorConfigId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "aggregate" JSONB,

    CONSTRAINT "EvaluationEvaluator_pkey" PRIMARY KEY ("evaluationId","evaluatorConfigId")
);

-- CreateTable
CREATE TABLE "EvaluationScenario" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "testsetRowId" TEXT,
    "inputs" JSONB NOT NULL,
    "output" JSONB NOT NULL,
    "cost" DOUBLE PRECISION,
    "latency" DOUBLE PRECISION,
    "correctAnswers" JSONB NOT NULL,
    "isPinned" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT NOT NULL DEFAULT '',
    "traceId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EvaluationScenario_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluationScenarioResult" (
    "scenarioId" TEXT NOT NULL,
    "evaluatorConfigId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "value" JSONB,
    "error" JSONB,
    "score" DOUBLE PRECISION,

    CONSTRAINT "EvaluationScenarioResult_pkey" PRIMARY KEY ("scenarioId","evaluatorConfigId")
);

-- CreateTable
CREATE TABLE "HumanEvaluation" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "evaluationType" "HumanEvaluationType" NOT NULL,
    "status" "EvaluationStatus" NOT NULL DEFAULT 'EVALUATION_INITIALIZED',
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
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HumanEvaluation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HumanEvaluationScenario" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HumanEvaluationScenario_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HumanJudgement" (
    "id" TEXT NOT NULL,
    "scenarioId" TEXT NOT NULL,
    "judge" TEXT NOT NULL,
    "vote" TEXT,
    "score" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HumanJudgement_pkey" PRIMARY KEY ("id")
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
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3) NOT NULL,
    "latency" DOUBLE PRECISION NOT NULL,
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
    "cost" DOUBLE PRECISION,
    "costSource" TEXT,
    "attributes" JSONB NOT NULL,
    "events" JSONB,
    "links" JSONB,
    "resource" JSONB,
    "scope" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Span_pkey" PRIMARY KEY ("projectId","traceId","spanId")
);

-- CreateTable
CREATE TABLE "Trace" (
    "projectId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "rootSpanId" TEXT,
    "name" TEXT,
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3) NOT NULL,
    "latency" DOUBLE PRECISION NOT NULL,
    "spanCount" INTEGER NOT NULL,
    "errorCount" INTEGER NOT NULL,
    "promptTokens" INTEGER,
    "completionTokens" INTEGER,
    "totalTokens" INTEGER,
    "cost" DOUBLE PRECISION,
    "spanKind" TEXT,
    "statusCode" TEXT,
    "environment" TEXT,
    "userId" TEXT,
    "sessionId" TEXT,
    "appId" TEXT,
    "variantId" TEXT,
    "variantName" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Trace_pkey" PRIMARY KEY ("projectId","traceId")
);

-- CreateTable
CREATE TABLE "ModelPrice" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input" DOUBLE PRECISION NOT NULL,
    "output" DOUBLE PRECISION NOT NULL,
    "cachedInput" DOUBLE PRECISION,
    "effectiveFrom" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModelPrice_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "App" ADD CONSTRAINT "App_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Variant" ADD CONSTRAINT "Variant_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Variant" ADD CONSTRAINT "Variant_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "VariantRevision" ADD CONSTRAINT "VariantRevision_variantId_fkey" FOREIGN KEY ("variantId") REFERENCES "Variant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Testset" ADD CONSTRAINT "Testset_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Testset" ADD CONSTRAINT "Testset_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TestsetRow" ADD CONSTRAINT "TestsetRow_testsetId_fkey" FOREIGN KEY ("testsetId") REFERENCES "Testset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluatorConfig" ADD CONSTRAINT "EvaluatorConfig_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluatorConfig" ADD CONSTRAINT "EvaluatorConfig_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evaluation" ADD CONSTRAINT "Evaluation_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evaluation" ADD CONSTRAINT "Evaluation_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationEvaluator" ADD CONSTRAINT "EvaluationEvaluator_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationEvaluator" ADD CONSTRAINT "EvaluationEvaluator_evaluatorConfigId_fkey" FOREIGN KEY ("evaluatorConfigId") REFERENCES "EvaluatorConfig"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationScenario" ADD CONSTRAINT "EvaluationScenario_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationScenarioResult" ADD CONSTRAINT "EvaluationScenarioResult_scenarioId_fkey" FOREIGN KEY ("scenarioId") REFERENCES "EvaluationScenario"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanEvaluation" ADD CONSTRAINT "HumanEvaluation_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanEvaluation" ADD CONSTRAINT "HumanEvaluation_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanEvaluationScenario" ADD CONSTRAINT "HumanEvaluationScenario_humanEvaluationId_fkey" FOREIGN KEY ("humanEvaluationId") REFERENCES "HumanEvaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanJudgement" ADD CONSTRAINT "HumanJudgement_scenarioId_fkey" FOREIGN KEY ("scenarioId") REFERENCES "HumanEvaluationScenario"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Span" ADD CONSTRAINT "Span_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trace" ADD CONSTRAINT "Trace_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ModelPrice" ADD CONSTRAINT "ModelPrice_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
