-- CreateTable
CREATE TABLE "AnnotationQueue" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "instructions" TEXT,
    "targetType" TEXT NOT NULL,
    "scoreConfigIds" JSONB NOT NULL,
    "annotatorsPerItem" INTEGER NOT NULL DEFAULT 1,
    "lockSeconds" INTEGER NOT NULL DEFAULT 300,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "AnnotationQueue_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AnnotationQueueAssignee" (
    "queueId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("queueId", "userId"),
    CONSTRAINT "AnnotationQueueAssignee_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AnnotationQueueItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "queueId" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "annotationCount" INTEGER NOT NULL DEFAULT 0,
    "lockedBy" TEXT,
    "lockedUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" DATETIME,
    CONSTRAINT "AnnotationQueueItem_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AnnotationQueueAnnotation" (
    "itemId" TEXT NOT NULL,
    "annotator" TEXT NOT NULL,
    "label" TEXT,
    "queueId" TEXT NOT NULL,
    "scoreIds" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("itemId", "annotator"),
    CONSTRAINT "AnnotationQueueAnnotation_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "AnnotationQueueItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "AnnotationQueue_projectId_createdAt_idx" ON "AnnotationQueue"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "AnnotationQueueAssignee_userId_idx" ON "AnnotationQueueAssignee"("userId");

-- CreateIndex
CREATE INDEX "AnnotationQueueItem_queueId_status_createdAt_idx" ON "AnnotationQueueItem"("queueId", "status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "AnnotationQueueItem_queueId_targetId_traceId_key" ON "AnnotationQueueItem"("queueId", "targetId", "traceId");

-- CreateIndex
CREATE INDEX "AnnotationQueueAnnotation_queueId_annotator_idx" ON "AnnotationQueueAnnotation"("queueId", "annotator");
