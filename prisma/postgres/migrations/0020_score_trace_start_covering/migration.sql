-- The trace's own id ends the index of the figures by trace start: the score filters' subqueries
-- (a project and a name, then the trace ids) took this index for its (projectId, name) prefix and
-- read every matching score row for the id; now the index alone answers them (docs/database.md#benchsearch).
-- DropIndex
DROP INDEX "Score_projectId_name_traceStart_traceEnvironment_dataType_s_idx";

-- CreateIndex
CREATE INDEX "Score_projectId_name_traceStart_traceEnvironment_dataType_s_idx" ON "Score"("projectId", "name", "traceStart", "traceEnvironment", "dataType", "stringValue", "value", "traceId");
