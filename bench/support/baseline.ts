// The whole service as it was at an earlier commit, for bench/ingest to measure beside today's in
// one run (docs/observability.md#measurements): that commit's tree (`git archive`) in a directory
// of its own, its own Prisma client generated there, built by its own `tsc -b`, and run with its
// own migrations on a database of its own. Only node_modules is shared (a symlink to this
// checkout's), which holds while the commit's package-lock.json names the same dependencies:
// checked, and refused otherwise. The web UI is not built there (the bench sends only OTLP).
// The build is kept in the system's temp dir under the commit's id, so a second run reuses it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The commit before the rule-driven mapping (issue 24); BENCH_BASELINE_REF picks another. */
export const baselineRef = process.env.BENCH_BASELINE_REF ?? 'ebe2e43';

function git(...args: string[]): Buffer {
  return execFileSync('git', args, { cwd: root, maxBuffer: 1 << 30 });
}

/** The dependencies (name → version) a package-lock.json installs. */
function lockedPackages(lock: string): Map<string, string> {
  const { packages } = JSON.parse(lock) as { packages: Record<string, { version?: string }> };
  return new Map(Object.entries(packages).map(([path, entry]) => [path, entry.version ?? '']));
}

/**
 * The directory of the baseline's checkout, built (dist/ holds its service, run from there so
 * that its paths to prisma/ and web/ are its own). Throws when its locked dependencies differ
 * from this checkout's, whose node_modules it borrows.
 */
export function buildBaseline(): string {
  const commit = git('rev-parse', '--verify', `${baselineRef}^{commit}`).toString().trim();
  const dir = join(tmpdir(), `assay-bench-baseline-${commit}`);
  const done = join(dir, '.built');
  if (existsSync(done)) return dir;
  const theirs = lockedPackages(git('show', `${commit}:package-lock.json`).toString());
  const ours = lockedPackages(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const differ = [...new Set([...theirs.keys(), ...ours.keys()])].filter((path) => path !== '' && theirs.get(path) !== ours.get(path));
  if (differ.length > 0)
    throw new Error(`${baselineRef}'s package-lock.json differs from this checkout's (${differ.slice(0, 5).join(', ')}…): its node_modules cannot be shared`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-x', '-C', dir], { input: git('archive', commit) });
  symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'));
  for (const [command, args] of [
    [process.execPath, ['scripts/prisma-generate.mjs']],
    [process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json']],
  ] as const) {
    const run = spawnSync(command, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`${args.join(' ')} in ${dir} exited with ${run.status}`);
  }
  // The service registers web/dist/assets as a static root; an empty one is enough here.
  mkdirSync(join(dir, 'web/dist/assets'), { recursive: true });
  writeFileSync(done, `${commit}\n`);
  return dir;
}
