/**
 * The page's entry script: deliberately tiny. At `/` the gateway serves the landing page
 * prerendered (dist/landing.html), so the page is painted and readable before this runs; the
 * app itself (React, router, store: src/app/boot.tsx) is fetched when the page needs it
 * (app/load-when-needed.ts: the visitor's first act, a form coming near, a signed-in visitor, or
 * a few idle seconds) and hydrates that HTML. Until it has, the in-page buttons (data-scroll-to)
 * already scroll. Other routes get an empty #root, which the app renders into at once.
 */
import './lib/zod-jitless';
import { loadWhenNeeded, needsAppAtOnce } from './app/load-when-needed';
import { scrollToSection } from './features/landing/scroll-to-section';
import './styles/app.css';

/** Makes the prerendered page's scroll buttons work until React takes them over. */
function scrollButtonsUntilHydrated(): () => void {
  const onClick = (e: MouseEvent) => {
    const button = (e.target as Element | null)?.closest?.('[data-scroll-to]');
    const id = button?.getAttribute('data-scroll-to');
    if (id) scrollToSection(id);
  };
  document.addEventListener('click', onClick);
  return () => document.removeEventListener('click', onClick);
}

/** A visitor who only reads the landing page gets its forms this long after the page loaded. */
const IDLE_MS = 4000;

const root = document.getElementById('root');
if (root) {
  // Not hydrated when the page returns from Google sign-in (#session_id=…): the app's first
  // screen is then "Signing you in…", so it renders afresh over the landing page.
  const hydrate = root.firstElementChild !== null && !/session_id=/.test(window.location.hash);
  const stopEarlyButtons = hydrate ? scrollButtonsUntilHydrated() : () => {};
  const start = (): void =>
    void import('./app/boot').then(
      ({ boot }) => {
        stopEarlyButtons();
        boot(root, hydrate);
      },
      // The app did not arrive (the network dropped): fetched again on the visitor's next act.
      () => loadWhenNeeded(start, { idleMs: IDLE_MS, near: [] }),
    );
  if (!hydrate || needsAppAtOnce(window.location, document.cookie)) start();
  else loadWhenNeeded(start, { idleMs: IDLE_MS, near: root.querySelectorAll('.form-placeholder') });
}
