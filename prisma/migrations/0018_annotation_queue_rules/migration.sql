-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AnnotationQueue" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "instructions" TEXT,
    "targetType" TEXT NOT NULL,
    "scoreConfigIds" JSONB NOT NULL,
    "annotatorsPerItem" INTEGER NOT NULL DEFAULT 1,
    "lockSeconds" INTEGER NOT NULL DEFAULT 300,
    "ruleIds" JSONB NOT NULL DEFAULT '[]',
    "ruleCondition" TEXT NOT NULL DEFAULT 'all',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "AnnotationQueue_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_AnnotationQueue" ("annotatorsPerItem", "createdAt", "id", "instructions", "lockSeconds", "name", "projectId", "scoreConfigIds", "targetType", "updatedAt") SELECT "annotatorsPerItem", "createdAt", "id", "instructions", "lockSeconds", "name", "projectId", "scoreConfigIds", "targetType", "updatedAt" FROM "AnnotationQueue";
DROP TABLE "AnnotationQueue";
ALTER TABLE "new_AnnotationQueue" RENAME TO "AnnotationQueue";
CREATE INDEX "AnnotationQueue_projectId_createdAt_idx" ON "AnnotationQueue"("projectId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
