// The runtime the suite runs on: Node 22.12 or newer (package.json `engines`; Node 24 is the one
// tested and documented), and better-sqlite3 13 for every user of it. better-sqlite3 12 aborts
// Node 24 when a statement is collected (docs/runtime.md), and Prisma's adapter still asks for
// ^12, so package.json `overrides` it: this test fails if an update brings a second, older copy.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

function installedVersion(packageJsonPath: string): string {
  return (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;
}

function major(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

describe('runtime', () => {
  it('is Node 22.12 or newer', () => {
    const [maj, min] = process.versions.node.split('.').map(Number);
    expect(maj > 22 || (maj === 22 && min >= 12), `the suite runs on Node ${process.versions.node}`).toBe(true);
  });

  it('resolves one better-sqlite3, version 13 or newer, for Assay and for Prisma’s adapter', () => {
    const ours = require.resolve('better-sqlite3/package.json');
    // Resolved from the adapter's own files, as Node resolves its `import 'better-sqlite3'`.
    const adapters = createRequire(require.resolve('@prisma/adapter-better-sqlite3')).resolve('better-sqlite3/package.json');
    expect(adapters).toBe(ours);
    expect(major(installedVersion(ours))).toBeGreaterThanOrEqual(13);
  });

  it('keeps the override that lifts Prisma’s adapter off better-sqlite3 12', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
      overrides?: Record<string, Record<string, string>>;
    };
    expect(manifest.engines.node).toBe('>=22.12');
    expect(manifest.overrides?.['@prisma/adapter-better-sqlite3']?.['better-sqlite3']).toBe('$better-sqlite3');
  });
});
