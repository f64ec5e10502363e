-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Evaluation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL,
    "variantName" TEXT NOT NULL,
    "variantRevisionId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "testsetId" TEXT,
    "testsetName" TEXT,
    "testsetRevision" INTEGER,
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
    "origin" TEXT NOT NULL DEFAULT 'assay',
    "description" TEXT,
    "metadata" JSONB,
    "runKey" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Evaluation_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Evaluation_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Evaluation" ("appId", "averageCost", "averageLatency", "correctAnswerColumn", "createdAt", "done", "errors", "finishedAt", "id", "leaseExpiresAt", "leaseOwner", "projectId", "providerKeys", "rateLimit", "revision", "startedAt", "status", "statusError", "testsetId", "testsetName", "testsetRevision", "total", "totalCost", "updatedAt", "variantId", "variantName", "variantRevisionId") SELECT "appId", "averageCost", "averageLatency", "correctAnswerColumn", "createdAt", "done", "errors", "finishedAt", "id", "leaseExpiresAt", "leaseOwner", "projectId", "providerKeys", "rateLimit", "revision", "startedAt", "status", "statusError", "testsetId", "testsetName", "testsetRevision", "total", "totalCost", "updatedAt", "variantId", "variantName", "variantRevisionId" FROM "Evaluation";
DROP TABLE "Evaluation";
ALTER TABLE "new_Evaluation" RENAME TO "Evaluation";
CREATE INDEX "Evaluation_projectId_appId_idx" ON "Evaluation"("projectId", "appId");
CREATE INDEX "Evaluation_status_idx" ON "Evaluation"("status");
CREATE UNIQUE INDEX "Evaluation_projectId_runKey_key" ON "Evaluation"("projectId", "runKey");
CREATE TABLE "new_EvaluationScenario" (
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
    "spanId" TEXT,
    "outputFromTrace" BOOLEAN NOT NULL DEFAULT false,
    "givenCost" REAL,
    "givenLatency" REAL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "EvaluationScenario_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "Evaluation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_EvaluationScenario" ("correctAnswers", "cost", "createdAt", "evaluationId", "id", "inputs", "isPinned", "latency", "note", "output", "position", "projectId", "testsetRowId", "traceId", "updatedAt") SELECT "correctAnswers", "cost", "createdAt", "evaluationId", "id", "inputs", "isPinned", "latency", "note", "output", "position", "projectId", "testsetRowId", "traceId", "updatedAt" FROM "EvaluationScenario";
DROP TABLE "EvaluationScenario";
ALTER TABLE "new_EvaluationScenario" RENAME TO "EvaluationScenario";
CREATE INDEX "EvaluationScenario_projectId_traceId_idx" ON "EvaluationScenario"("projectId", "traceId");
CREATE UNIQUE INDEX "EvaluationScenario_evaluationId_position_key" ON "EvaluationScenario"("evaluationId", "position");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
