import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app';
import { makeStore } from './store';

/**
 * Starts the app in #root. `hydrate`: #root holds the prerendered landing page (src/prerender.tsx)
 * and the app's first render is that same HTML, so React adopts the DOM instead of replacing it
 * (nothing repaints, no layout shift). Hydration runs as a transition, so React works through it
 * in short slices and a click or key press in between is handled first.
 */
export function boot(root: HTMLElement, hydrate: boolean): void {
  const app = (
    <StrictMode>
      <App store={makeStore()} />
    </StrictMode>
  );
  if (hydrate) {
    startTransition(() => {
      hydrateRoot(root, app);
    });
  } else {
    createRoot(root).render(app);
  }
}
