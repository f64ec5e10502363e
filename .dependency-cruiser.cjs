// The layers of src/ (docs/architecture.md): imports point down only. From the bottom:
//   shared plumbing (src/shared, the generated Prisma client, the GraphQL builder and its error mapping in shared/graphql),
//   the domains, ranked below,
//   the top: src/graphql (the schema that gathers every domain, Yoga and its plugins), the server, main and the cli.
// `npm run lint:deps` checks them, with no violation excused.

/** Domains from the lowest rank up; a domain imports only domains of a lower rank. */
const domainRanks = [
  ['projects'],
  ['auth'],
  ['pricing'],
  ['scores'],
  ['providers', 'observability'],
  ['apps'],
  ['testsets'],
  ['evaluators'],
  ['invocation'],
  ['evaluation-engine'],
  ['evaluations', 'human-evaluations', 'online-evaluation', 'playground'],
  ['annotation-queues'],
  ['langfuse'],
];

const bottom = '^src/(shared|generated)/';
const top = '^src/(server|main|cli)\\.ts$|^src/graphql/';
const folder = (names) => `^src/(${names.join('|')})/`;

const domainRules = domainRanks.flatMap((rank, index) => {
  const notBelow = domainRanks.slice(index).flat();
  return rank.map((domain) => ({
    name: `${domain}-points-down`,
    comment: `${domain} may import shared plumbing and the domains ranked below it, never ${notBelow.filter((d) => d !== domain).join(', ')}`,
    severity: 'error',
    from: { path: folder([domain]) },
    to: { path: folder(notBelow.filter((d) => d !== domain)) },
  }));
});

/**
 * Observability's parts (docs/architecture.md#observabilitys-parts), and the other parts each may
 * import: ingestion stands alone (what it stores is what the others read: its SpanRecord types and
 * the roll-ups), the trace reads build on it, search on both (it lists spans as the reads shape
 * them), sessions on all three (they group the traces search lists), retention and deletion on
 * ingestion alone (they undo its writes).
 */
const observabilityParts = {
  ingestion: [],
  traces: ['ingestion'],
  search: ['ingestion', 'traces'],
  sessions: ['ingestion', 'traces', 'search'],
  retention: ['ingestion'],
};

const observabilityRules = Object.entries(observabilityParts).map(([part, below]) => {
  const others = Object.keys(observabilityParts).filter((other) => other !== part && !below.includes(other));
  return {
    name: `observability-${part}-points-one-way`,
    comment: `observability/${part} may import ${below.length ? below.join(', ') : 'no other part of observability'}, never ${others.join(', ')}`,
    severity: 'error',
    // A part's tests may look through any part to check what it did (retention's read the traces back).
    from: { path: `^src/observability/${part}/`, pathNot: '\\.test\\.ts$' },
    to: { path: `^src/observability/(${others.join('|')})/` },
  };
});

/**
 * auth's parts from the lowest up (docs/architecture.md): the audit log, API keys, users and
 * sessions; the files at auth's root (the Authenticator, the caller's projects) use them all.
 */
const authParts = [['audit'], ['keys'], ['users']];
const authRoot = '^src/auth/[^/]+$';

const authRules = authParts.flatMap((rank, index) => {
  const notBelow = authParts.slice(index).flat();
  return rank.map((part) => ({
    name: `auth-${part}-points-down`,
    comment: `auth/${part} may import auth's parts ranked below it, never ${[...notBelow.filter((p) => p !== part).map((p) => `auth/${p}`), "auth's root"].join(', ')}`,
    severity: 'error',
    from: { path: `^src/auth/${part}/` },
    to: { path: [`^src/auth/(${notBelow.filter((p) => p !== part).join('|') || '$^'})/`, authRoot] },
  }));
});

module.exports = {
  forbidden: [
    {
      name: 'bottom-stays-at-the-bottom',
      comment: 'Shared plumbing imports nothing above it: no domain, nothing of the top.',
      severity: 'error',
      from: { path: bottom },
      to: { path: '^src/', pathNot: bottom },
    },
    {
      name: 'nothing-imports-the-top',
      comment: 'Only the top assembles the service: no domain or plumbing imports the schema, Yoga or the server.',
      severity: 'error',
      from: { path: '^src/', pathNot: top },
      to: { path: top },
    },
    ...domainRules,
    ...observabilityRules,
    {
      name: 'observability-routes-only-from-the-server',
      comment: "An observability part's REST routes are registered by src/server.ts and imported by nothing else.",
      severity: 'error',
      from: { path: '^src/', pathNot: top },
      to: { path: '^src/observability/.+/routes\\.ts$' },
    },
    {
      name: 'observability-graphql-only-from-graphql',
      comment:
        "An observability part's GraphQL types are imported only by the schema and by other GraphQL (search's queries answer traces' Span and Trace; annotation queues take search's filter arguments; a variant revision answers its traces and their figures; the playground's run answers traces' TokenUsage); no operation imports them.",
      severity: 'error',
      from: { path: '^src/', pathNot: `${top}|^src/observability/.+/graphql\\.ts$|^src/(annotation-queues|apps|playground)/graphql\\.ts$` },
      to: { path: '^src/observability/.+/graphql\\.ts$' },
    },
    ...authRules,
    {
      name: 'no-test-code-in-the-build',
      comment: 'Code that ships (src/ but its *.test.ts) imports neither vitest nor the test helpers.',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/|node_modules/vitest/' },
    },
    {
      name: 'no-circular',
      comment: 'Modules that import each other, directly or through others, cannot be read or changed alone.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs'] },
  },
};
