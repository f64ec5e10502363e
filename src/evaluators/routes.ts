import type { FastifyInstance } from 'fastify';

// Filled in by the evaluators work: GET /evaluators and evaluator configs (SPEC §3, §5).
export function evaluatorRoutes(_app: FastifyInstance): void {}
