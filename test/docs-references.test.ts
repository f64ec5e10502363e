// The code explains itself with the project's own documents only: a comment (or a test name)
// may point into docs/, never to a document outside the repository (a product spec, a "seed"),
// and every docs/ page it names, with its #section when given, must exist (docs/README.md).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const thisFile = 'test/docs-references.test.ts';

/** The project's own source files, as git knows them (generated code excluded). */
function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'test', 'bench', 'scripts'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((path) => /\.(ts|mts|mjs|js|sh)$/.test(path))
    .filter((path) => !path.startsWith('src/generated/') && path !== thisFile && existsSync(join(root, path)));
}

/** Citations of documents outside the repository. */
const outside: { name: string; pattern: RegExp }[] = [
  { name: 'the product spec', pattern: /\bSPEC\b|SPEC\.md/ },
  { name: 'a section sign', pattern: /§/ },
  { name: 'a seed document', pattern: /\bseeds?\s+\d|\bseeds?\/|\bthe seed\b|\bseed file\b/i },
  { name: 'a bare contract section (write docs/contract.md <n>)', pattern: /(?<!docs\/)\bcontract\s+\(?\d\.\d/i },
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
  const headings = readFileSync(join(root, page), 'utf8').match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((line) => anchorOf(line.replace(/^#+ /, ''))));
}

interface Hit {
  file: string;
  line: number;
  text: string;
}

function scan(check: (line: string) => string | null): Hit[] {
  const hits: Hit[] = [];
  for (const file of sourceFiles()) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      const fault = check(line);
      if (fault) hits.push({ file, line: index + 1, text: `${fault}: ${line.trim()}` });
    });
  }
  return hits;
}

describe('references from the code to documents', () => {
  it('scans the source tree', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('src/server.ts');
  });

  it('cites no document outside the repository', () => {
    const hits = scan((line) => outside.find(({ pattern }) => pattern.test(line))?.name ?? null);
    expect(hits.map((hit) => `${hit.file}:${hit.line} ${hit.text}`)).toEqual([]);
  });

  it('names only docs/ pages, and sections of them, that exist', () => {
    const anchors = new Map<string, Set<string>>();
    const hits = scan((line) => {
      for (const match of line.matchAll(/(?<![\w/.-])docs\/[\w./-]*\w(?:#[\w-]+)?/g)) {
        const [page, anchor] = match[0].split('#');
        if (!existsSync(join(root, page))) return `no such page ${page}`;
        if (anchor === undefined) continue;
        if (!anchors.has(page)) anchors.set(page, anchorsOf(page));
        if (!anchors.get(page)!.has(anchor)) return `no section #${anchor} in ${page}`;
      }
      return null;
    });
    expect(hits.map((hit) => `${hit.file}:${hit.line} ${hit.text}`)).toEqual([]);
  });

  it('finds the faults it is meant to find', () => {
    const flagged = (line: string) => outside.some(({ pattern }) => pattern.test(line));
    expect(flagged('// Retries as SPEC §4 orders')).toBe(true);
    expect(flagged('// The span JSON (seed 2.1)')).toBe(true);
    expect(flagged("it('has every field of contract 2.4')")).toBe(true);
    expect(flagged('// Every field of docs/contract.md 2.4')).toBe(false);
    expect(flagged('let seed = 7; // Park–Miller')).toBe(false);
    expect(anchorOf('2.4 Evaluation')).toBe('24-evaluation');
    expect(anchorOf('What a variant is sent')).toBe('what-a-variant-is-sent');
  });
});
