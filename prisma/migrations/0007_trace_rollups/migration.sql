-- CreateTable
CREATE TABLE "TraceModel" (
    "projectId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "model" TEXT NOT NULL,

    PRIMARY KEY ("projectId", "traceId", "model"),
    CONSTRAINT "TraceModel_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "TraceModel_projectId_model_traceId_idx" ON "TraceModel"("projectId", "model", "traceId");

-- Written by hand: the models of the traces already stored (docs/observability.md#roll-ups).
INSERT INTO "TraceModel" ("projectId", "traceId", "model")
SELECT DISTINCT "projectId", "traceId", "model" FROM "Span" WHERE "model" IS NOT NULL;
