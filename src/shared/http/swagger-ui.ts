// GET /docs: Swagger UI over the OpenAPI document, every file from the swagger-ui-dist package,
// so the page loads nothing from elsewhere (no CDN, no font, no validator badge). Asset paths are
// absolute (`/docs/...`): they work for /docs, /docs/ and /api/docs alike.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../errors.js';

const assetTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-bundle.js.map': 'application/json; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

function page(): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Assay API reference</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;
}

function initScript(documentUrl: string): string {
  // validatorUrl null: no badge, so no request to the public validator.
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(documentUrl)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;
}

export function serveSwaggerUi(server: FastifyInstance, documentUrl: string): void {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const html = page();
  const init = initScript(documentUrl);
  server.get('/docs', { config: { access: 'public' } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  server.get('/docs/init.js', { config: { access: 'public' } }, async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(init));
  server.get<{ Params: { file: string } }>('/docs/:file', { config: { access: 'public' } }, async (request, reply) => {
    const type = assetTypes[request.params.file];
    // Only the listed files: the parameter never reaches the file system otherwise.
    if (!type) throw new NotFoundError('File', request.params.file);
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=86400')
      .send(createReadStream(join(dist, request.params.file)));
  });
}
