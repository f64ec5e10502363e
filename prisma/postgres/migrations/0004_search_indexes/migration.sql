-- Trigram indexes for name search (docs/database.md#search-indexes): `ILIKE '%…%'` over span and
-- trace names. Not over the JSON text of inputs and outputs: those indexes halved ingestion.
-- Written by hand: Prisma's schema cannot name an operator class of an extension. pg_trgm ships
-- with PostgreSQL and is a trusted extension (a database owner may create it); where it cannot be
-- created, name searches scan instead.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): text search will scan', SQLERRM;
END $$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX "Span_name_trgm_idx" ON "Span" USING gin ("name" gin_trgm_ops);
    CREATE INDEX "Trace_name_trgm_idx" ON "Trace" USING gin ("name" gin_trgm_ops);
  END IF;
END $$;
