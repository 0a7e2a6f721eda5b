/**
 * The landing page as static HTML, written into dist/landing.html at build time
 * (scripts/prerender.mjs) and served for `/`: a visitor on a slow phone sees the page before
 * the JavaScript arrives. It is what the app itself first renders at `/` for a visitor who is
 * not signed in (forms still loading); the app then renders over it.
 */
import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { LandingPage } from './features/landing/components/landing-page';
import { makeStore } from './app/store';

export function renderLanding(): string {
  return renderToString(
    <Provider store={makeStore()}>
      <MemoryRouter initialEntries={['/']}>
        <LandingPage signedIn={false} />
      </MemoryRouter>
    </Provider>,
  );
}
