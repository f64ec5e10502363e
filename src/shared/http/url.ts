// Request paths as the router reads them (docs/limits.md).

/**
 * `url` with every path segment that is not valid percent-encoded UTF-8 (`%E0%A4%A`, a lone `%`)
 * escaped whole, so the router reads it as the literal text sent: an id like any other, unknown
 * (404 "<Kind> with id … not found") rather than a routing failure in Fastify's own shape.
 */
export function escapeUndecodableSegments(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!path.includes('%')) return url;
  const escaped = path
    .split('/')
    .map((segment) => {
      try {
        decodeURIComponent(segment);
        return segment;
      } catch {
        return encodeURIComponent(segment);
      }
    })
    .join('/');
  return query < 0 ? escaped : escaped + url.slice(query);
}
