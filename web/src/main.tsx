/**
 * The page's entry script: deliberately tiny. At `/` the gateway serves the landing page
 * prerendered (dist/landing.html), so the page is painted and readable before this runs; the
 * app itself (React, router, store: src/app/boot.tsx) is fetched right away and hydrates that
 * HTML. Until it has, the in-page buttons (data-scroll-to) already scroll. Other routes get an
 * empty #root, which the app renders into.
 */
import './lib/zod-jitless';
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

const root = document.getElementById('root');
if (root) {
  // Not hydrated when the page returns from Google sign-in (#session_id=…): the app's first
  // screen is then "Signing you in…", so it renders afresh over the landing page.
  const hydrate = root.firstElementChild !== null && !/session_id=/.test(window.location.hash);
  const stopEarlyButtons = hydrate ? scrollButtonsUntilHydrated() : () => {};
  void import('./app/boot').then(({ boot }) => {
    stopEarlyButtons();
    boot(root, hydrate);
  });
}
