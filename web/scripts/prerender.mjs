// After `vite build` and `vite build --ssr src/prerender.tsx`: writes dist/landing.html, the
// built index.html with the landing page's HTML inside #root (served by the gateway for `/`).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const ssrDir = `${web}dist-ssr`;
const { renderLanding } = await import(pathToFileURL(`${ssrDir}/prerender.js`).href);
const index = readFileSync(`${web}dist/index.html`, 'utf8');
const root = '<div id="root"></div>';
if (!index.includes(root)) throw new Error(`dist/index.html has no empty ${root}`);
const html = renderLanding();
writeFileSync(`${web}dist/landing.html`, index.replace(root, `<div id="root">${html}</div>`));
rmSync(ssrDir, { recursive: true, force: true });
console.log(
  `prerender: dist/landing.html (${(html.length / 1024).toFixed(1)} KB of landing page HTML)`,
);
