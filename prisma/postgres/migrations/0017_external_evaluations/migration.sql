-- AlterTable
ALTER TABLE "Evaluation" ADD COLUMN     "description" TEXT,
ADD COLUMN     "metadata" JSONB,
ADD COLUMN     "origin" TEXT NOT NULL DEFAULT 'assay',
ADD COLUMN     "runKey" TEXT;

-- AlterTable
ALTER TABLE "EvaluationScenario" ADD COLUMN     "givenCost" DOUBLE PRECISION,
ADD COLUMN     "givenLatency" DOUBLE PRECISION,
ADD COLUMN     "outputFromTrace" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "spanId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Evaluation_projectId_runKey_key" ON "Evaluation"("projectId", "runKey");

-- CreateIndex
CREATE INDEX "EvaluationScenario_projectId_traceId_idx" ON "EvaluationScenario"("projectId", "traceId");
