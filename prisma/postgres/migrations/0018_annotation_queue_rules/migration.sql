-- AlterTable
ALTER TABLE "AnnotationQueue" ADD COLUMN     "ruleCondition" TEXT NOT NULL DEFAULT 'all',
ADD COLUMN     "ruleIds" JSONB NOT NULL DEFAULT '[]';
