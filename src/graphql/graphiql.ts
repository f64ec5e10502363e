// GraphiQL from the installed @graphql-yoga/render-graphiql, whose page carries its scripts,
// styles, editor workers and favicon inline: Yoga's default page loads them from a CDN, and is
// blank on a machine without internet (docs/graphql.md).
import type { GraphiQLOptions } from 'graphql-yoga';

/**
 * The bundle is 9 MB of JavaScript: loaded on the first GraphiQL visit, not at start, so a server
 * nobody browses does not carry it.
 */
export async function renderOfflineGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  return renderGraphiQL(options);
}
