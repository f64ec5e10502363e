// bench/code-evaluators: code evaluations per second through the real service, Python against
// JavaScript. The service runs as `npm start` runs it, in its own process, and so does the user's
// endpoint (answering at once). Each run is one evaluation of N cases with one custom code
// evaluator, batch_size 100; its rate is N / (wall time from POST /evaluations to its end). The
// Python pool is warmed first by a small evaluation (its processes start with the first Python
// call, docs/evaluators.md#python-sandbox). A third run with auto_exact_match shows what the
// runner itself allows with no code evaluator at all.
// Run: npx tsx bench/code-evaluators.ts [cases]
import { fileURLToPath } from 'node:url';
import { seconds, startProcess, startService, serviceCaller } from './support/measure.js';

const CASES = Number(process.argv[2] ?? 1_000);
const BATCH = 100;
const endpointScript = fileURLToPath(new URL('./support/endpoint.mjs', import.meta.url));

const codes = {
  python: [
    'import difflib',
    'def evaluate(app_params, inputs, output, correct_answer):',
    '    return difflib.SequenceMatcher(None, str(output), str(correct_answer)).ratio()',
  ].join('\n'),
  javascript: [
    'function evaluate(app_params, inputs, output, correct_answer) {',
    '  const a = String(output), b = String(correct_answer);',
    '  let same = 0; for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] === b[i]) same++;',
    '  return (2 * same) / (a.length + b.length || 1);',
    '}',
  ].join('\n'),
};

const service = await startService();
const endpoint = await startProcess(endpointScript);
const uri = `http://127.0.0.1:${endpoint.port}/`;

const call = serviceCaller(service.baseUrl);

const rows = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ country: `Country ${i}`, correct_answer: `The capital of Country ${i} is City ${i}.` }));
const app = await call<{ app_id: string }>('POST', '/apps', { app_name: 'bench-code' });
const variant = await call<{ variant_id: string }>('POST', `/apps/${app.app_id}/variants`, { variant_name: 'endpoint', kind: 'endpoint', uri });
const testset = await call<{ id: string }>('POST', '/testsets', { name: 'bench-code', csvdata: rows(CASES) });
const warmSet = await call<{ id: string }>('POST', '/testsets', { name: 'bench-code-warm', csvdata: rows(8) });

async function config(name: string, evaluator_key: string, settings_values: Record<string, unknown>): Promise<string> {
  return (await call<{ id: string }>('POST', '/evaluators/configs', { app_id: app.app_id, name, evaluator_key, settings_values })).id;
}

/** One evaluation of the test set with one evaluator; its wall time, after checking every case scored. */
async function evaluate(configId: string, testsetId: string, count: number): Promise<number> {
  const start = process.hrtime.bigint();
  const [evaluation] = await call<{ id: string }[]>('POST', '/evaluations', {
    app_id: app.app_id,
    variant_ids: [variant.variant_id],
    evaluators_configs: [configId],
    testset_id: testsetId,
    rate_limit: { batch_size: BATCH, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
  });
  for (;;) {
    const { status, progress } = await call<{ status: { value: string }; progress: { done: number } }>('GET', `/evaluations/${evaluation.id}/status`);
    if (!['EVALUATION_INITIALIZED', 'EVALUATION_STARTED'].includes(status.value)) {
      const wall = seconds(start);
      if (status.value !== 'EVALUATION_FINISHED' || progress.done !== count) throw new Error(`run ended ${status.value} with ${progress.done} cases`);
      return wall;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const python = await config('python', 'auto_custom_code_run', { code: codes.python, runtime: 'python' });
const javascript = await config('javascript', 'auto_custom_code_run', { code: codes.javascript, runtime: 'javascript' });
const exact = await config('exact', 'auto_exact_match', {});
const warmStart = process.hrtime.bigint();
await evaluate(python, warmSet.id, 8);
const warmUp = seconds(warmStart);
await evaluate(javascript, warmSet.id, 8);

const walls = {
  python: await evaluate(python, testset.id, CASES),
  javascript: await evaluate(javascript, testset.id, CASES),
  none: await evaluate(exact, testset.id, CASES),
};
const rate = (wall: number) => CASES / wall;

console.log(`bench/code-evaluators: ${CASES} cases, one evaluator each, batch_size ${BATCH}, endpoint answering at once`);
console.log(`Python pool warm-up (first evaluation of 8 cases, processes starting): ${warmUp.toFixed(2)} s`);
console.log('| runtime | wall (s) | evaluations/s |');
console.log('|---|---|---|');
console.log(`| Python (Pyodide, warm pool) | ${walls.python.toFixed(2)} | ${rate(walls.python).toFixed(1)} |`);
console.log(`| JavaScript (QuickJS) | ${walls.javascript.toFixed(2)} | ${rate(walls.javascript).toFixed(1)} |`);
console.log(`| no code (auto_exact_match) | ${walls.none.toFixed(2)} | ${rate(walls.none).toFixed(1)} |`);
console.log(`Python / JavaScript: ${(rate(walls.python) / rate(walls.javascript)).toFixed(2)}`);
console.log(`service peak RSS: ${service.peakRssMb().toFixed(0)} MB (the sandbox processes are apart)`);

endpoint.child.kill();
await service.stop();
