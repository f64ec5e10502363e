-- CreateTable
CREATE TABLE "Score" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "traceId" TEXT,
    "spanId" TEXT,
    "sessionId" TEXT,
    "scenarioId" TEXT,
    "name" TEXT NOT NULL,
    "dataType" TEXT NOT NULL,
    "value" DOUBLE PRECISION,
    "stringValue" TEXT,
    "comment" TEXT,
    "metadata" JSONB,
    "source" TEXT NOT NULL,
    "authorType" TEXT NOT NULL,
    "authorId" TEXT,
    "authorLabel" TEXT,
    "configId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Score_pkey" PRIMARY KEY ("projectId","id")
);

-- CreateTable
CREATE TABLE "ScoreConfig" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "dataType" TEXT NOT NULL,
    "minValue" DOUBLE PRECISION,
    "maxValue" DOUBLE PRECISION,
    "categories" JSONB,
    "description" TEXT,
    "isArchived" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ScoreConfig_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Score_projectId_traceId_idx" ON "Score"("projectId", "traceId");

-- CreateIndex
CREATE INDEX "Score_projectId_spanId_idx" ON "Score"("projectId", "spanId");

-- CreateIndex
CREATE INDEX "Score_projectId_sessionId_idx" ON "Score"("projectId", "sessionId");

-- CreateIndex
CREATE INDEX "Score_projectId_scenarioId_idx" ON "Score"("projectId", "scenarioId");

-- CreateIndex
CREATE INDEX "Score_projectId_name_createdAt_idx" ON "Score"("projectId", "name", "createdAt");

-- CreateIndex
CREATE INDEX "Score_projectId_createdAt_idx" ON "Score"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "ScoreConfig_projectId_name_idx" ON "ScoreConfig"("projectId", "name");

-- AddForeignKey
ALTER TABLE "Score" ADD CONSTRAINT "Score_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ScoreConfig" ADD CONSTRAINT "ScoreConfig_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
