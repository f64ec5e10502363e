// A write is acknowledged only once it is on disk: every successful reply to a request that may
// write (any method but GET, HEAD and OPTIONS: REST writes, GraphQL over POST, OTLP) waits for the
// WAL's shared fsync on SQLite (wal-sync.ts); on PostgreSQL the COMMIT itself waited. A failed
// fsync turns the reply into a 500.
import type { FastifyInstance } from 'fastify';
import type { CommitSync } from '../wal-sync.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function acknowledgeDurably(app: FastifyInstance, walSync: CommitSync): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!READS.has(request.method) && reply.statusCode < 400) await walSync.sync();
    return payload;
  });
}
