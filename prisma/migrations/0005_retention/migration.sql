-- AlterTable
ALTER TABLE "Project" ADD COLUMN "retentionDays" INTEGER;
