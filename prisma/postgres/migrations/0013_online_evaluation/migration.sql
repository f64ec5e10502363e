-- CreateTable
CREATE TABLE "EvaluationRule" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "target" TEXT NOT NULL,
    "filter" JSONB NOT NULL,
    "samplingRate" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "delaySeconds" INTEGER NOT NULL DEFAULT 0,
    "evaluatorConfigId" TEXT NOT NULL,
    "mapping" JSONB,
    "scoreName" TEXT NOT NULL,
    "dailyCostLimitUsd" DOUBLE PRECISION,
    "status" TEXT NOT NULL DEFAULT 'ACTIVE',
    "pausedReason" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "enabledAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EvaluationRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvaluationRuleJob" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "ruleVersion" INTEGER NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetKey" TEXT NOT NULL,
    "traceId" TEXT,
    "spanId" TEXT,
    "sessionId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "skipReason" TEXT,
    "statusError" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "retries" INTEGER NOT NULL DEFAULT 0,
    "scoreId" TEXT,
    "judgeTraceId" TEXT,
    "cost" DOUBLE PRECISION,
    "latency" DOUBLE PRECISION,
    "notBefore" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "EvaluationRuleJob_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "EvaluationRule_projectId_name_key" ON "EvaluationRule"("projectId", "name");

-- CreateIndex
CREATE INDEX "EvaluationRuleJob_status_notBefore_idx" ON "EvaluationRuleJob"("status", "notBefore");

-- CreateIndex
CREATE INDEX "EvaluationRuleJob_ruleId_status_id_idx" ON "EvaluationRuleJob"("ruleId", "status", "id");

-- CreateIndex
CREATE INDEX "EvaluationRuleJob_ruleId_finishedAt_idx" ON "EvaluationRuleJob"("ruleId", "finishedAt");

-- CreateIndex
CREATE UNIQUE INDEX "EvaluationRuleJob_ruleId_ruleVersion_targetKey_key" ON "EvaluationRuleJob"("ruleId", "ruleVersion", "targetKey");

-- AddForeignKey
ALTER TABLE "EvaluationRule" ADD CONSTRAINT "EvaluationRule_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationRuleJob" ADD CONSTRAINT "EvaluationRuleJob_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationRuleJob" ADD CONSTRAINT "EvaluationRuleJob_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "EvaluationRule"("id") ON DELETE CASCADE ON UPDATE CASCADE;
