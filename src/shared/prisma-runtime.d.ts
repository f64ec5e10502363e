// Prisma's query compiler for PostgreSQL, which @prisma/client ships untyped; db.ts loads it for
// the one generated client when DATABASE_URL is PostgreSQL (docs/database.md#one-client).
declare module '@prisma/client/runtime/query_compiler_fast_bg.postgresql.mjs' {
  const runtime: Record<string, unknown>;
  export = runtime;
}
declare module '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs' {
  export const wasm: string;
}
