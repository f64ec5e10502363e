// The web UI's build (docs/ui.md): `npm run build` runs it through scripts/build-web.mjs; `npx vite
// web` serves it in development, proxying the API to an Assay at ASSAY_URL.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { relayArtifacts } from './relay-artifacts.ts';

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
