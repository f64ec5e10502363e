import type { FastifyInstance } from 'fastify';

// Filled in by the observability work: legacy ingest and trace/span reads (SPEC §7).
export function observabilityRoutes(_app: FastifyInstance): void {}
