-- DropIndex
DROP INDEX "TestsetRow_testsetId_position_key";

-- AlterTable
ALTER TABLE "Testset" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "TestsetRow" ADD COLUMN     "revisionFrom" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "revisionTo" INTEGER,
ADD COLUMN     "sourceSpanId" TEXT,
ADD COLUMN     "sourceTraceId" TEXT;

-- AlterTable
ALTER TABLE "Evaluation" ADD COLUMN     "testsetRevision" INTEGER;

-- CreateTable
CREATE TABLE "TestsetRevision" (
    "id" TEXT NOT NULL,
    "testsetId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "change" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "columns" JSONB NOT NULL,
    "rowCount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TestsetRevision_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TestsetRevision_testsetId_number_key" ON "TestsetRevision"("testsetId", "number");

-- CreateIndex
CREATE INDEX "TestsetRow_testsetId_revisionTo_position_idx" ON "TestsetRow"("testsetId", "revisionTo", "position");

-- CreateIndex
CREATE UNIQUE INDEX "TestsetRow_testsetId_position_revisionFrom_key" ON "TestsetRow"("testsetId", "position", "revisionFrom");

-- AddForeignKey
ALTER TABLE "TestsetRevision" ADD CONSTRAINT "TestsetRevision_testsetId_fkey" FOREIGN KEY ("testsetId") REFERENCES "Testset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand (twin in both folders): every existing test set is its revision 1, whose id is
-- the test set's (one per set, so unique), and every existing evaluation ran on it.
INSERT INTO "TestsetRevision" ("id", "testsetId", "number", "change", "name", "columns", "rowCount", "createdAt")
SELECT "id", "id", 1, 'created', "name", "columns", "rowCount", "updatedAt" FROM "Testset";
UPDATE "Evaluation" SET "testsetRevision" = 1 WHERE "testsetId" IS NOT NULL;
