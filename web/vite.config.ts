import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
// react-router's package exports only name its development build; the production one sits beside it.
const routerProd = path.join(
  path.dirname(require.resolve('react-router')),
  '../production/index.mjs',
);

// Builds the single-page app into web/dist (served by services/gateway).
// `npm run dev -w web` proxies /api to the gateway on 127.0.0.1:8080.
export default defineConfig(({ mode, isSsrBuild }) => ({
  base: '/',
  plugins: [react()],
  resolve: {
    alias: mode === 'production' ? [{ find: /^react-router$/, replacement: routerProd }] : [],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Read by scripts/prerender.mjs (then deleted): the app chunk index.html preloads.
    manifest: true,
    // One style sheet, linked by index.html: the global sheet and every component's CSS module,
    // so the prerendered landing page paints styled before the app's chunk arrives.
    cssCodeSplit: false,
    // The app, and the share page's one script (jobs renders /r/{token} and names it
    // /share-reel.js: a fixed name outside assets/, so it is revalidated, never cached for good).
    // Not in the prerender's SSR build (its entry is src/prerender.tsx).
    rolldownOptions: isSsrBuild
      ? {}
      : {
          input: { index: 'index.html', 'share-reel': 'src/share-reel.ts' },
          output: {
            entryFileNames: (chunk) =>
              chunk.name === 'share-reel' ? 'share-reel.js' : 'assets/[name]-[hash].js',
          },
        },
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
}));
