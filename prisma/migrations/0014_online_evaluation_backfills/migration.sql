-- CreateTable
CREATE TABLE "EvaluationRuleBackfill" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "statusError" JSONB,
    "startedAfter" DATETIME NOT NULL,
    "startedBefore" DATETIME NOT NULL,
    "limit" INTEGER NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "seen" INTEGER NOT NULL DEFAULT 0,
    "cursor" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "EvaluationRuleBackfill_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "EvaluationRuleBackfill_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "EvaluationRule" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "EvaluationRuleBackfill_ruleId_id_idx" ON "EvaluationRuleBackfill"("ruleId", "id");
