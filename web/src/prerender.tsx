/**
 * The landing page as static HTML, written into dist/landing.html at build time
 * (scripts/prerender.mjs) and served for `/`: a visitor sees the page before any JavaScript
 * runs. It is the app's own first render at `/` for a visitor who is not signed in (forms still
 * loading), inside the same providers, so the client hydrates it (src/app/boot.tsx) without
 * replacing a node.
 */
import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { StaticRouter } from 'react-router';
import { AppContent } from './app/app';
import { makeStore } from './app/store';

export function renderLanding(): string {
  return renderToString(
    <Provider store={makeStore()}>
      <StaticRouter location="/">
        <AppContent />
      </StaticRouter>
    </Provider>,
  );
}
