-- AlterTable
ALTER TABLE "Testset" ADD COLUMN     "description" TEXT,
ADD COLUMN     "metadata" JSONB;

-- AlterTable
ALTER TABLE "TestsetRow" ADD COLUMN     "caseId" TEXT,
ADD COLUMN     "metadata" JSONB;

-- CreateIndex
CREATE INDEX "TestsetRow_caseId_idx" ON "TestsetRow"("caseId");

-- Written by hand (twin in both folders): every existing row version is a case of its own id.
UPDATE "TestsetRow" SET "caseId" = "id" WHERE "caseId" IS NULL;
