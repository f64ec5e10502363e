// What a browser may do with the service (docs/access.md#browsers), with auth on and off:
// - CORS only for the origins of ASSAY_CORS_ORIGINS, never by echoing whatever `Origin` came;
//   their preflights are answered here, before credentials are asked for.
// - A state-changing request that a browser sends from another site (a form, a `text/plain`
//   fetch: both go without a preflight) is refused unless its origin is allowed.
// - With auth off, only loopback host names and ASSAY_ALLOWED_HOSTS are served, so a page whose
//   name is rebound to 127.0.0.1 (DNS rebinding) reaches nothing. With auth on, its keys protect
//   it; ASSAY_ALLOWED_HOSTS still restricts the names when set.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { ForbiddenError, MisdirectedRequestError } from '../errors.js';
import { routeAccess } from './access.js';

export interface BrowserSettings {
  authEnabled: boolean;
  /** ASSAY_CORS_ORIGINS, as `URL.origin` writes them. */
  corsOrigins: readonly string[];
  /** ASSAY_ALLOWED_HOSTS: host names, lowercase, IPv6 without brackets. */
  allowedHosts: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** `localhost`, `127.0.0.1`, `[::1]` (with any port), the names only this machine reaches. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost') return true;
  return ipaddr.isValid(name) && ipaddr.process(name).range() === 'loopback';
}

/** The host name of a `Host` header (no port), or null when it is missing or unreadable. */
function hostnameOf(host: string | undefined): string | null {
  if (!host || !URL.canParse(`http://${host}`)) return null;
  return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Whether a browser sent `req` from another site. `Sec-Fetch-Site` is the browser's own word
 * (same-site counts as another: `localhost:3000` is the same site as `localhost:8000`); without
 * it, an `Origin` whose host is not the request's `Host`. Neither header: not a browser (curl).
 */
function fromAnotherSite(req: FastifyRequest): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return !URL.canParse(origin) || new URL(origin).host !== req.headers.host;
}

export function registerBrowserGuards(server: FastifyInstance, settings: BrowserSettings): void {
  const origins = new Set(settings.corsOrigins);
  const hosts = new Set(settings.allowedHosts);
  const checkHost = !settings.authEnabled || hosts.size > 0;
  const served = (name: string) => hosts.has(name) || (!settings.authEnabled && isLoopbackName(name));
  const hostAdvice = settings.authEnabled
    ? 'ASSAY_ALLOWED_HOSTS lists the names served'
    : 'with auth off only loopback names and ASSAY_ALLOWED_HOSTS are served';
  server.addHook('onRequest', async (req, reply) => {
    // Health and the API reference read nothing of anyone's: probes reach them by any name.
    if (checkHost && routeAccess(req) !== 'public') {
      const name = hostnameOf(req.headers.host);
      if (name === null || !served(name)) {
        throw new MisdirectedRequestError(
          `This server does not serve the host ${JSON.stringify(req.headers.host ?? '')}: ${hostAdvice} (docs/access.md#browsers)`,
        );
      }
    }
    const origin = req.headers.origin;
    const allowed = origin !== undefined && origins.has(origin);
    if (origin !== undefined) reply.header('vary', 'Origin');
    if (allowed) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
      reply.header('access-control-expose-headers', 'retry-after, www-authenticate, content-disposition');
    }
    if (req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
      if (!allowed)
        throw new ForbiddenError(`The origin ${origin} is not allowed: ASSAY_CORS_ORIGINS lists the origins browsers may call from (docs/access.md#browsers)`);
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE')
        .header('access-control-allow-headers', req.headers['access-control-request-headers'] ?? 'authorization, content-type')
        .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
        .send();
    }
    if (!SAFE_METHODS.has(req.method) && !allowed && fromAnotherSite(req)) {
      throw new ForbiddenError(
        `A browser request from ${origin ?? 'another site'} may not change anything here: ASSAY_CORS_ORIGINS lists the origins allowed to (docs/access.md#browsers)`,
      );
    }
  });
}
