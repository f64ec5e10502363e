// What a route requires of its caller (docs/access.md#scopes), declared with the route: a REST
// route's `scope` in its description (openapi.ts), or `config.access` on the few registered
// otherwise. Undeclared, a GET needs `read` and any other method `write`.
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../context.js';

/**
 * A scope; `public` for routes served without credentials (health, the API description);
 * `authenticated` for routes that check scopes themselves once they know the operation (GraphQL).
 */
export type RouteAccess = Scope | 'public' | 'authenticated';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/**
 * Whether the route acts in a project, which a session of several projects must name: not an
 * instance-wide route (`instanceWide` in its description), and GraphQL decides per field once it
 * knows the operation (src/graphql/scopes.ts).
 */
export function routeNeedsProject(req: FastifyRequest): boolean {
  const config = req.routeOptions.config as { access?: RouteAccess; openapi?: { instanceWide?: boolean } } | undefined;
  return !(config?.openapi?.instanceWide === true || config?.access === 'authenticated');
}

export function routeAccess(req: FastifyRequest): RouteAccess {
  const config = req.routeOptions.config as { access?: RouteAccess; openapi?: { scope?: Scope | 'public' } } | undefined;
  return config?.access ?? config?.openapi?.scope ?? (req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write');
}
