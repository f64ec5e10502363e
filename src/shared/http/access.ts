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

export function routeAccess(req: FastifyRequest): RouteAccess {
  const config = req.routeOptions.config as { access?: RouteAccess; openapi?: { scope?: Scope | 'public' } } | undefined;
  return config?.access ?? config?.openapi?.scope ?? (req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write');
}
