import type { FastifyInstance } from 'fastify';

// Filled in by the testsets work: REST routes of SPEC §3 "Testset".
export function testsetRoutes(_app: FastifyInstance): void {}
