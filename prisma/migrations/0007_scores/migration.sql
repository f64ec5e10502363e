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
    "value" REAL,
    "stringValue" TEXT,
    "comment" TEXT,
    "metadata" JSONB,
    "source" TEXT NOT NULL,
    "authorType" TEXT NOT NULL,
    "authorId" TEXT,
    "authorLabel" TEXT,
    "configId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("projectId", "id"),
    CONSTRAINT "Score_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ScoreConfig" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "dataType" TEXT NOT NULL,
    "minValue" REAL,
    "maxValue" REAL,
    "categories" JSONB,
    "description" TEXT,
    "isArchived" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ScoreConfig_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
