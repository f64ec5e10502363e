// Vitest's global setup: the web UI built once per run, and only when web/dist is older than its
// sources (scripts/build-web.mjs decides), so a fresh clone's `npm test` serves a current UI to the
// browser tests without another command, and an unchanged UI costs a file-time check.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  const result = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'scripts', 'build-web.mjs')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the web UI failed (scripts/build-web.mjs)');
}
