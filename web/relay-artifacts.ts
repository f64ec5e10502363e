// Relay's `graphql` tags in the UI's code, replaced by imports of the artifacts relay-compiler wrote
// for them (what babel-plugin-relay does, without Babel): used by the build (vite.config.ts) and by
// the UI's tests (vitest.config.ts), which render components with their fragments.
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const source = fileURLToPath(new URL('./src/', import.meta.url));
const artifacts = fileURLToPath(new URL('./src/__generated__', import.meta.url));

/**
 * `graphql\`query TracePageQuery …\`` becomes the default export of
 * `__generated__/TracePageQuery.graphql.ts`; only in `web/src` (the service's code writes
 * `/graphql\`` in URLs).
 */
export function relayArtifacts(): Plugin {
  return {
    name: 'assay-relay-artifacts',
    enforce: 'pre',
    transform(code, id) {
      if (!id.startsWith(source) || !/\.tsx?$/.test(id) || id.includes('__generated__') || !code.includes('graphql`')) return null;
      const imports: string[] = [];
      const out = code.replace(/\bgraphql`([^`]*)`/g, (_tag, text: string) => {
        const name = /\b(?:query|mutation|subscription|fragment)\s+(\w+)/.exec(text)?.[1];
        if (!name) throw new Error(`${id}: a graphql tag names no operation or fragment`);
        imports.push(`import __relay_${name} from ${JSON.stringify(`${artifacts}/${name}.graphql.ts`)};`);
        return `__relay_${name}`;
      });
      return { code: `${imports.join('\n')}\n${out}`, map: null };
    },
  };
}
