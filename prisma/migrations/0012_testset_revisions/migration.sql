-- AlterTable
ALTER TABLE "Evaluation" ADD COLUMN "testsetRevision" INTEGER;

-- CreateTable
CREATE TABLE "TestsetRevision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "testsetId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "change" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "columns" JSONB NOT NULL,
    "rowCount" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TestsetRevision_testsetId_fkey" FOREIGN KEY ("testsetId") REFERENCES "Testset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Testset" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "appId" TEXT,
    "name" TEXT NOT NULL,
    "columns" JSONB NOT NULL,
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Testset_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Testset_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Testset" ("appId", "columns", "createdAt", "id", "name", "projectId", "rowCount", "updatedAt") SELECT "appId", "columns", "createdAt", "id", "name", "projectId", "rowCount", "updatedAt" FROM "Testset";
DROP TABLE "Testset";
ALTER TABLE "new_Testset" RENAME TO "Testset";
CREATE INDEX "Testset_projectId_idx" ON "Testset"("projectId");
CREATE TABLE "new_TestsetRow" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "testsetId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "data" JSONB NOT NULL,
    "revisionFrom" INTEGER NOT NULL DEFAULT 1,
    "revisionTo" INTEGER,
    "sourceTraceId" TEXT,
    "sourceSpanId" TEXT,
    CONSTRAINT "TestsetRow_testsetId_fkey" FOREIGN KEY ("testsetId") REFERENCES "Testset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_TestsetRow" ("data", "id", "position", "testsetId") SELECT "data", "id", "position", "testsetId" FROM "TestsetRow";
DROP TABLE "TestsetRow";
ALTER TABLE "new_TestsetRow" RENAME TO "TestsetRow";
CREATE INDEX "TestsetRow_testsetId_revisionTo_position_idx" ON "TestsetRow"("testsetId", "revisionTo", "position");
CREATE UNIQUE INDEX "TestsetRow_testsetId_position_revisionFrom_key" ON "TestsetRow"("testsetId", "position", "revisionFrom");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "TestsetRevision_testsetId_number_key" ON "TestsetRevision"("testsetId", "number");

-- Written by hand (twin in both folders): every existing test set is its revision 1, whose id is
-- the test set's (one per set, so unique), and every existing evaluation ran on it.
INSERT INTO "TestsetRevision" ("id", "testsetId", "number", "change", "name", "columns", "rowCount", "createdAt")
SELECT "id", "id", 1, 'created', "name", "columns", "rowCount", "updatedAt" FROM "Testset";
UPDATE "Evaluation" SET "testsetRevision" = 1 WHERE "testsetId" IS NOT NULL;
