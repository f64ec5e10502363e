// bench/evaluations: 10,000 test cases × 3 evaluators, batch_size 100. The service runs as
// `npm start` runs it, in its own process, and so does the user's endpoint. Baseline, measured
// in the same run: the same calls at the same concurrency, storing nothing. Then the same run
// against an endpoint that takes 50 ms, against the ideal wall time (cases / batch_size × 50 ms).
// The baseline makes its calls with the service's own HTTP client (postJson, undici's request),
// so the ratio measures what the run adds to the calls, not a difference between HTTP clients.
// Run: npx tsx bench/evaluations.ts [cases]
import { setMaxListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import { postJson } from '../src/shared/http/client.js';
import { seconds, startProcess, startService } from './support/measure.js';

const CASES = Number(process.argv[2] ?? 10_000);
const BATCH = 100;
const endpointScript = fileURLToPath(new URL('./support/endpoint.mjs', import.meta.url));
const rows = Array.from({ length: CASES }, (_, i) => ({ country: `Country ${i}`, capital: `City ${i}`, correct_answer: `The capital of Country ${i} is City ${i}.` }));

const service = await startService();
const base = service.baseUrl;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

const app = await call('POST', '/apps', { app_name: 'bench' });
const testset = await call('POST', '/testsets', { name: 'bench', csvdata: rows });
const configs: string[] = [];
for (const [name, evaluator_key, settings_values] of [
  ['exact', 'auto_exact_match', {}],
  ['contains', 'auto_contains', { substring: 'capital' }],
  ['levenshtein', 'auto_levenshtein_distance', {}],
] as const) {
  configs.push((await call('POST', '/evaluators/configs', { app_id: app.app_id, name, evaluator_key, settings_values })).id);
}
const setUpRss = service.peakRssMb();

/** Runs one evaluation against an endpoint; answers its wall time from POST to the end. */
async function evaluate(uri: string, name: string): Promise<number> {
  const variant = await call('POST', `/apps/${app.app_id}/variants`, { variant_name: name, kind: 'endpoint', uri });
  const start = process.hrtime.bigint();
  const [evaluation] = await call('POST', '/evaluations', {
    app_id: app.app_id,
    variant_ids: [variant.variant_id],
    evaluators_configs: configs,
    testset_id: testset.id,
    rate_limit: { batch_size: BATCH, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
  });
  for (;;) {
    const { status, progress } = await call('GET', `/evaluations/${evaluation.id}/status`);
    if (!['EVALUATION_INITIALIZED', 'EVALUATION_STARTED'].includes(status.value)) {
      const wall = seconds(start);
      if (status.value !== 'EVALUATION_FINISHED' || progress.done !== CASES) throw new Error(`run ended ${status.value} with ${progress.done} cases`);
      return wall;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The baseline: the same calls, same concurrency, same HTTP client, nothing scored or stored. */
async function callOnly(uri: string): Promise<number> {
  const start = process.hrtime.bigint();
  const signal = new AbortController().signal;
  setMaxListeners(0, signal);
  for (let i = 0; i < CASES; i += BATCH) {
    await Promise.all(
      rows.slice(i, i + BATCH).map(async (inputs) => JSON.parse(await postJson(uri, { inputs, parameters: {} }, { peer: uri, signal }))),
    );
  }
  return seconds(start);
}

const fast = await startProcess(endpointScript);
const fastUri = `http://127.0.0.1:${fast.port}/`;
await callOnly(fastUri); // warm-up: connections, JIT
const baseline = await callOnly(fastUri);
const run = await evaluate(fastUri, 'instant');
fast.child.kill();

const slow = await startProcess(endpointScript, { DELAY_MS: '50' });
const ideal = (CASES / BATCH) * 0.05;
const slowUri = `http://127.0.0.1:${slow.port}/`;
const slowBaseline = await callOnly(slowUri);
const slowRun = await evaluate(slowUri, 'fifty-ms');
slow.child.kill();

console.log(`bench/evaluations: ${CASES} cases × ${configs.length} evaluators, batch_size ${BATCH}`);
console.log(`  instant endpoint: ${run.toFixed(2)} s, ${(CASES / run).toFixed(0)} cases/s`);
console.log(`  baseline (same calls, nothing stored): ${baseline.toFixed(2)} s, ${(CASES / baseline).toFixed(0)} cases/s`);
console.log(`  ratio run/baseline: ${(run / baseline).toFixed(2)} (aim ≤ 1.5)`);
const over = (wall: number) => `${(((wall - ideal) / ideal) * 100).toFixed(1)}% over`;
console.log(`  50 ms endpoint: ${slowRun.toFixed(2)} s against an ideal of ${ideal.toFixed(2)} s: ${over(slowRun)} (aim ≤ 10%)`);
console.log(`  50 ms endpoint, calls only: ${slowBaseline.toFixed(2)} s: ${over(slowBaseline)}; run/calls-only ${(slowRun / slowBaseline).toFixed(2)}`);
console.log(`  peak RSS of the service: ${service.peakRssMb().toFixed(0)} MB (aim < 300 MB); ${setUpRss.toFixed(0)} MB after the set-up (10,000-row test set upload), before the runs`);

await service.stop();
