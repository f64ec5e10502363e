// The web UI (docs/ui.md), served from web/dist (built by `npm run build`) on the service's own
// port: the page at `/`, `/login`, `/set-password` and every screen's URL under `/p/`, its hashed
// assets under `/assets/`. These paths are `public` (docs/access.md): the page holds no data, and
// it must load to show a login. Any other unknown GET that asks for HTML gets the page too
// (client-side routing shows "no such page"); the API's own paths and answers are untouched.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../errors.js';

/** web/dist beside src/ (tsx) or dist/ (the build): both are one level under the repository. */
export const webDist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'web', 'dist');

/**
 * Everything the page loads comes from this server; nothing else may be fetched, framed or run.
 * Inline styles are allowed: React sets element positions (the virtualised span rows) through them.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function sendPage(reply: FastifyReply): FastifyReply {
  const index = join(webDist, 'index.html');
  // Read at each request: a rebuild (new asset names) is served without a restart.
  if (!existsSync(index)) throw new NotFoundError('Page', 'the web UI, which is not built: run `npm run build`');
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', contentSecurityPolicy)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .send(readFileSync(index));
}

/** A GET or HEAD a browser sends for a page (not an API client, not an asset or XHR). */
export function wantsPage(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && (request.headers.accept ?? '').includes('text/html') && !request.url.startsWith('/assets/');
}

/** Answers an unknown path: the page for a browser, else null (the caller answers 404). */
export function pageFallback(request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  return wantsPage(request) ? sendPage(reply) : null;
}

export async function registerWebUi(server: FastifyInstance): Promise<void> {
  const page = { config: { access: 'public' as const } };
  server.get('/', page, async (_request, reply) => sendPage(reply));
  server.get('/p/*', page, async (_request, reply) => sendPage(reply));
  // The sign-in page and the one a password link opens must load without a session.
  server.get('/login', page, async (_request, reply) => sendPage(reply));
  server.get('/set-password', page, async (_request, reply) => sendPage(reply));
  await server.register(async (assets) => {
    // The plugin takes no route config: its routes are made public as they are added.
    assets.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'public' };
    });
    await assets.register(fastifyStatic, {
      root: join(webDist, 'assets'),
      prefix: '/assets/',
      // The build names every asset by its content's hash: a name never changes meaning.
      immutable: true,
      // The build wrote each script and style also as `.br` and `.gz` (scripts/build-web.mjs):
      // sent with Content-Encoding to a browser whose Accept-Encoding takes them, else as built.
      preCompressed: true,
      // …so a shared cache keeps one copy per encoding.
      setHeaders: (response) => {
        response.setHeader('vary', 'accept-encoding');
      },
      maxAge: '365d',
      index: false,
      decorateReply: false,
    });
  });
}
