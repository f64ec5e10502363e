import { startServer } from '../test/helpers/server.js';
const server = await startServer({ LOG_LEVEL: 'error', LOG_FORMAT: 'json' });
import { legacySpan } from '../test/helpers/spans.js';
const chain = Array.from({ length: 4000 }, (_, i) => legacySpan(`d${i}`, i === 0 ? null : `d${i - 1}`, i, i + 1));
const t = Date.now();
const r = await server.request('POST', '/observability/trace', { trace: 'deep', spans: chain });
console.log(r.status, Date.now() - t, r.text.slice(0, 500));
console.log(server.assay.database.provider === 'postgresql' ? 'kept' : '');
await server.assay.close();
