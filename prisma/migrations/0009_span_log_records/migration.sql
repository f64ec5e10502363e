-- CreateTable
CREATE TABLE "SpanLogRecord" (
    "projectId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "timeUnixNano" BIGINT NOT NULL,
    "observedTimeUnixNano" BIGINT NOT NULL,
    "position" INTEGER NOT NULL,
    "eventName" TEXT NOT NULL,
    "severityNumber" INTEGER NOT NULL,
    "severityText" TEXT,
    "body" JSONB,
    "attributes" JSONB NOT NULL,
    "resource" JSONB,
    "scope" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("projectId", "traceId", "spanId", "recordId"),
    CONSTRAINT "SpanLogRecord_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SpanLogRecord_projectId_createdAt_idx" ON "SpanLogRecord"("projectId", "createdAt");
