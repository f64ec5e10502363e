// Each table belongs to one domain (docs/architecture.md#who-owns-which-table): only that domain's
// code touches it, never its REST or GraphQL adapter, plumbing or the top. The check reads the
// ownership table from the docs and scans the syntax of every shipped file of src/ for Prisma
// delegate calls and quoted table names in SQL; the first tests plant uses to show it fails.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** The methods of a Prisma model delegate (`ctx.db.span.findMany`). */
const delegateMethods = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'create',
  'createMany',
  'createManyAndReturn',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'upsert',
  'delete',
  'deleteMany',
  'count',
  'aggregate',
  'groupBy',
]);

/** Names a Prisma client or transaction goes by here: `db`, `ctx.db`, `services.db`, `tx`. */
const clientNames = new Set(['db', 'tx', 'prisma']);

/** Model → owning domain, from the table in docs/architecture.md#who-owns-which-table. */
function readOwnership(markdown: string): Map<string, string> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Who owns which table'));
  if (!section) throw new Error('docs/architecture.md has no "Who owns which table" section');
  const owners = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*(`[^|]+)\|\s*`([a-z-]+)`\s*\|$/.exec(line.trim());
    if (!cells) continue;
    for (const model of cells[1].matchAll(/`(\w+)`/g)) {
      if (owners.has(model[1])) throw new Error(`${model[1]} is listed twice`);
      owners.set(model[1], cells[2]);
    }
  }
  return owners;
}

interface TableUse {
  file: string;
  line: number;
  model: string;
  how: 'delegate' | 'sql';
}

/** Every model `source` touches: delegate calls and uses (`db.span`, `tx.trace.create`), and `"Model"` in string or template text. */
function tableUses(file: string, source: string, models: readonly string[]): TableUse[] {
  const byDelegate = new Map(models.map((model) => [model[0].toLowerCase() + model.slice(1), model]));
  const quoted = new RegExp(`"(${models.join('|')})"`, 'g');
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const uses: TableUse[] = [];
  const add = (node: ts.Node, model: string, how: TableUse['how']) =>
    uses.push({ file, line: sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1, model, how });
  const receiverName = (expression: ts.Expression): string | null =>
    ts.isIdentifier(expression) ? expression.text : ts.isPropertyAccessExpression(expression) ? expression.name.text : null;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) {
      const model = byDelegate.get(node.name.text);
      if (model) {
        const parent = node.parent;
        const called = ts.isPropertyAccessExpression(parent) && parent.expression === node && delegateMethods.has(parent.name.text);
        const onClient = clientNames.has(receiverName(node.expression) ?? '');
        if (called || onClient) add(node, model, 'delegate');
      }
    }
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      for (const match of node.text.matchAll(quoted)) add(node, match[1], 'sql');
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return uses;
}

const adapters = new Set(['routes.ts', 'graphql.ts']);
const notDomains = new Set(['shared', 'generated', 'graphql']);

/** The domain whose tables `file` (a path under src/, with /) may touch; null: none (plumbing, the top, an adapter). */
function domainOf(file: string): string | null {
  const [top, folder, ...rest] = file.split('/');
  if (top !== 'src' || rest.length === 0 || notDomains.has(folder)) return null;
  return rest.length === 1 && adapters.has(rest[0]) ? null : folder;
}

/** The uses in `file` of tables its domain does not own. */
function violations(file: string, source: string, owners: ReadonlyMap<string, string>): TableUse[] {
  const domain = domainOf(file);
  return tableUses(file, source, [...owners.keys()]).filter((use) => owners.get(use.model) !== domain);
}

function shippedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : shippedFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(root, path).split(sep).join('/')] : [];
  });
}

const owners = readOwnership(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));

describe('the check', () => {
  it('finds a delegate call and a raw SQL read of another domain’s table', () => {
    const source = [
      'export async function cost(ctx) {',
      '  const spans = await ctx.db.span.findMany({ where: { projectId: ctx.projectId } });',
      '  return ctx.db.$queryRaw`SELECT "cost" FROM "Span" s JOIN "EvaluationScenario" e ON e."traceId" = s."traceId"`;',
      '}',
    ].join('\n');
    expect(violations('src/evaluations/operations.ts', source, owners)).toEqual([
      { file: 'src/evaluations/operations.ts', line: 2, model: 'Span', how: 'delegate' },
      { file: 'src/evaluations/operations.ts', line: 3, model: 'Span', how: 'sql' },
    ]);
  });

  it('finds a delegate used in a transaction or handed on, and SQL built in pieces', () => {
    const source = [
      'await db.$transaction(async (tx) => tx.trace.deleteMany({}));',
      'new Runner(services.db.modelPrice);',
      'const sql = \'SELECT 1 FROM "Testset"\' + ` WHERE ${x} IN (SELECT "id" FROM "TestsetRow")`;',
    ].join('\n');
    expect(violations('src/human-evaluations/runner.ts', source, owners).map((use) => `${use.line} ${use.model} ${use.how}`)).toEqual([
      '1 Trace delegate',
      '2 ModelPrice delegate',
      '3 Testset sql',
      '3 TestsetRow sql',
    ]);
  });

  it('lets a domain touch its own tables, but not from its adapters, plumbing or the top', () => {
    const own = 'await ctx.db.humanJudgement.upsert({}); await ctx.db.$queryRaw`SELECT 1 FROM "HumanEvaluationScenario"`;';
    expect(violations('src/human-evaluations/operations.ts', own, owners)).toEqual([]);
    expect(violations('src/human-evaluations/graphql.ts', own, owners)).toHaveLength(2);
    expect(violations('src/human-evaluations/routes.ts', own, owners)).toHaveLength(2);
    expect(violations('src/shared/leases.ts', own, owners)).toHaveLength(2);
    expect(violations('src/graphql/yoga.ts', own, owners)).toHaveLength(2);
    expect(violations('src/server.ts', own, owners)).toHaveLength(2);
  });

  it('ignores comments, fields that share a model’s name and unquoted words', () => {
    const source = [
      '// ctx.db.span.findMany reads "Span"',
      "const cost = answer.trace.cost; const label = 'a Span'; throw new NotFoundError('Span', id);",
    ].join('\n');
    expect(violations('src/evaluations/runner.ts', source, owners)).toEqual([]);
  });
});

describe('src/', () => {
  it('lists every model of prisma/schema.prisma with its owner, a folder of src/', () => {
    const models = [...readFileSync(join(root, 'prisma/schema.prisma'), 'utf8').matchAll(/^model (\w+) \{/gm)].map((match) => match[1]);
    expect([...owners.keys()].sort()).toEqual(models.sort());
    const folders = new Set(
      readdirSync(join(root, 'src'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
    for (const domain of new Set(owners.values())) expect(folders, domain).toContain(domain);
  });

  it('touches each table only from its owning domain, never from an adapter, plumbing or the top', () => {
    const files = shippedFiles(join(root, 'src'));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => violations(file, readFileSync(join(root, file), 'utf8'), owners));
    expect(found).toEqual([]);
    // The scan sees the real uses: every domain that owns tables is found using them. `shared`
    // owns only what a library writes (RateLimit), which no query of ours may touch.
    const users = new Set(
      files.flatMap((file) => tableUses(file, readFileSync(join(root, file), 'utf8'), [...owners.keys()]).map((use) => owners.get(use.model))),
    );
    expect([...users].sort()).toEqual([...new Set(owners.values())].filter((domain) => domain !== 'shared').sort());
  });
});
