// The web UI's build (docs/ui.md): `npm run build` runs it through scripts/build-web.mjs; `npx vite
// web` serves it in development, proxying the API to an Assay at ASSAY_URL.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const artifacts = fileURLToPath(new URL('./src/__generated__', import.meta.url));

/**
 * Relay's `graphql` tags, replaced by imports of the artifacts relay-compiler wrote for them (what
 * babel-plugin-relay does, without Babel): `graphql\`query TracePageQuery …\`` becomes the default
 * export of `__generated__/TracePageQuery.graphql.ts`.
 */
function relayArtifacts(): Plugin {
  return {
    name: 'assay-relay-artifacts',
    enforce: 'pre',
    transform(code, id) {
      if (!/\.tsx?$/.test(id) || id.includes('__generated__') || !code.includes('graphql`')) return null;
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

const assay = process.env.ASSAY_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [relayArtifacts(), react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1024 },
  // Development: the UI from Vite, every API path from Assay (its SSE stream included).
  server: {
    proxy: Object.fromEntries(['/graphql', '/auth', '/healthz'].map((path) => [path, { target: assay, changeOrigin: false }])),
  },
});
