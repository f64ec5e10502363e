-- CreateTable
CREATE TABLE "EvaluationRuleBackfill" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "statusError" JSONB,
    "startedAfter" TIMESTAMP(3) NOT NULL,
    "startedBefore" TIMESTAMP(3) NOT NULL,
    "limit" INTEGER NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "seen" INTEGER NOT NULL DEFAULT 0,
    "cursor" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "EvaluationRuleBackfill_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "EvaluationRuleBackfill_ruleId_id_idx" ON "EvaluationRuleBackfill"("ruleId", "id");

-- AddForeignKey
ALTER TABLE "EvaluationRuleBackfill" ADD CONSTRAINT "EvaluationRuleBackfill_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvaluationRuleBackfill" ADD CONSTRAINT "EvaluationRuleBackfill_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "EvaluationRule"("id") ON DELETE CASCADE ON UPDATE CASCADE;
