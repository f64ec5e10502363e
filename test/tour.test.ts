// The README cannot rot: its `sh tour` blocks are scripts/tour.sh (checked here, verbatim and in
// order), the script runs top to bottom against a real server, and the instrumentation example
// (docs/examples/instrument.ts) exports to it, at the OTLP path and at Langfuse's.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';
import { freePort } from './helpers/endpoints.js';

const root = new URL('..', import.meta.url).pathname;
const marker = "# ---- README.md's tour blocks from here ----\n";
const tools = ['bash', 'curl', 'jq'];
const missing = tools.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function run(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(file, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('the README tour', () => {
  it('is scripts/tour.sh: the README shows every command of the script, in order', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/^```sh tour\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
    expect(blocks.length).toBeGreaterThan(5);
    const script = readFileSync(join(root, 'scripts/tour.sh'), 'utf8');
    expect(script).toContain(marker);
    expect(blocks.join('')).toBe(script.slice(script.indexOf(marker) + marker.length));
  });

  it('shows docs/examples/instrument.ts as it is', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = readFileSync(join(root, 'docs/examples/instrument.ts'), 'utf8');
    const shown = /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1];
    expect(shown).toBe(example.slice(example.indexOf('import ')));
  });

  describe.skipIf(missing.length > 0)(`against a real server${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`, () => {
    let server: TestServer;
    const dir = mkdtempSync(join(tmpdir(), 'assay-tour-'));
    beforeAll(async () => {
      server = await startServer();
    });
    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs top to bottom', async () => {
      const { code, stdout, stderr } = await run('bash', [join(root, 'scripts/tour.sh')], {
        cwd: dir,
        env: { ASSAY: server.baseUrl, APP_PORT: String(await freePort()) },
      });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      // v1 answers the capitals exact_match expects; the tour printed each scenario.
      for (const [country, capital] of [
        ['France', 'Paris'],
        ['Japan', 'Tokyo'],
        ['Peru', 'Lima'],
      ]) {
        expect(stdout).toContain(`["${country}","${capital}",true]`);
      }
      expect(stdout).toContain('{"name":"agent","children":["llm"]}');
      const apps = (await server.request('GET', '/apps')).body;
      expect(apps.map((app: { app_name: string }) => app.app_name)).toEqual(['capitals']);
      const testsets = (await server.request('GET', `/testsets?app_id=${apps[0].app_id}`)).body;
      expect(testsets.map((testset: { name: string }) => testset.name).sort()).toEqual(['capitals', 'capitals-csv']);
    }, 60_000);

    it.each([
      ['the OTLP endpoint', ''],
      ["Langfuse's endpoint", '/api/public/otel'],
    ])('the TypeScript instrumentation example exports to %s', async (_name, path) => {
      const { code, stdout, stderr } = await run(process.execPath, ['--import', tsx, join(root, 'docs/examples/instrument.ts')], {
        cwd: root,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: server.baseUrl + path, OTEL_SERVICE_NAME: 'capitals' },
      });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const trace = await server.request('GET', `/observability/traces/${stdout.trim()}`);
      expect(trace.status).toBe(200);
      expect(trace.body).toMatchObject({ name: 'chat gpt-4o-mini', spankind: 'LLM', metadata: { usage: { prompt_tokens: 12, completion_tokens: 1 } } });
    });
  });
});
