// After `vite build` and `vite build --ssr src/prerender.tsx`:
// - writes dist/landing.html: the built index.html with the landing page's HTML inside #root
//   (served by the gateway for `/`; src/main.tsx hydrates it);
// - adds a modulepreload of the app chunk (src/app/boot.tsx, which the tiny entry imports) to
//   dist/index.html, the page of every other route, where the app must render at once. The
//   landing page does not preload it: its HTML paints first, the app follows.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const dist = `${web}dist`;
const ssrDir = `${web}dist-ssr`;
const { renderLanding } = await import(pathToFileURL(`${ssrDir}/prerender.js`).href);
const index = readFileSync(`${dist}/index.html`, 'utf8');
const root = '<div id="root"></div>';
if (!index.includes(root)) throw new Error(`dist/index.html has no empty ${root}`);
const html = renderLanding();
writeFileSync(`${dist}/landing.html`, index.replace(root, `<div id="root">${html}</div>`));

const manifest = JSON.parse(readFileSync(`${dist}/.vite/manifest.json`, 'utf8'));
const boot = manifest['src/app/boot.tsx'];
if (!boot) throw new Error('the vite manifest names no src/app/boot.tsx chunk');
const entry = manifest['index.html']?.file;
const chunks = [boot.file, ...(boot.imports ?? []).map((k) => manifest[k].file)].filter(
  (f) => f !== entry, // already the page's <script type=module>
);
const preloads = chunks
  .map((f) => `    <link rel="modulepreload" crossorigin href="/${f}">\n`)
  .join('');
writeFileSync(`${dist}/index.html`, index.replace('  </head>', `${preloads}  </head>`));

rmSync(`${dist}/.vite`, { recursive: true, force: true });
rmSync(ssrDir, { recursive: true, force: true });
console.log(
  `prerender: dist/landing.html (${(html.length / 1024).toFixed(1)} KB of landing page HTML); ` +
    `dist/index.html preloads ${chunks.join(', ')}`,
);
