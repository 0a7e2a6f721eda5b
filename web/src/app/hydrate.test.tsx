import '../test/setup';
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { act, screen, waitFor } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { setToken } from '../lib/tokens';
import { mockFetch, resetStorage } from '../test/setup';
import { App } from './app';
import { makeStore } from './store';

let renderLanding: () => string;

beforeAll(async () => {
  // react-dom/server's browser build wants MessageChannel (for streaming; renderToString is
  // synchronous), which jsdom lacks.
  const g = globalThis as { MessageChannel?: unknown };
  g.MessageChannel ??= class {
    port1: { onmessage: null | (() => void) } = { onmessage: null };
    port2 = { postMessage: () => setTimeout(() => this.port1.onmessage?.()) };
  };
  ({ renderLanding } = await import('../prerender'));
  // Lazily imported modules, loaded up front (jest's ESM loader cannot link a dynamic import
  // still in flight when a test ends; one at a time).
  for (const load of [
    () => import('../features/landing/components/waitlist-form'),
    () => import('../features/landing/components/tester-signup-form'),
    () => import('../features/landing/components/job-request-form'),
    () => import('../features/landing/components/developer-lead-form'),
    () => import('../components/feedback-form'),
    () => import('../lib/api'),
  ])
    await load();
});

beforeEach(() => {
  resetStorage();
  window.history.replaceState(null, '', '/');
});

/**
 * The prerendered landing page in #root (rendered as at build time: nothing stored), then the
 * app hydrating it, as src/main.tsx does; `visit` runs in between (e.g. a stored token).
 */
async function hydrateLanding(visit: () => void = () => {}) {
  const root = document.createElement('div');
  root.id = 'root';
  root.innerHTML = renderLanding();
  document.body.append(root);
  visit();
  const h1 = root.querySelector('h1');
  const banner = root.querySelector('.promo-banner');
  const errors: unknown[] = [];
  await act(async () => {
    hydrateRoot(root, <App store={makeStore()} />, {
      onRecoverableError: (e) => errors.push(e),
    });
  });
  return { root, h1, banner, errors };
}

describe('the prerendered landing page', () => {
  it('is hydrated in place: no hydration error, the same nodes, then the forms load', async () => {
    mockFetch(() => ({ status: 401, body: {} }));
    const { root, h1, banner, errors } = await hydrateLanding();
    expect(await screen.findByRole('form', { name: 'Tester signup' })).toBeTruthy();
    expect(errors).toEqual([]);
    expect(root.querySelector('h1')).toBe(h1);
    expect(root.querySelector('.promo-banner')).toBe(banner);
    expect(root.querySelectorAll('.promo-banner')).toHaveLength(1);
    root.remove();
  });

  it('is the signed-out page; a signed-in visitor gets Go to Dashboard right after hydration', async () => {
    // The landing's public live proof answers anyone; every other call is refused.
    mockFetch((c) =>
      c.url === '/api/public/proof' ? { body: { proof: null } } : { status: 401, body: {} },
    );
    const { root, errors } = await hydrateLanding(() => {
      expect(screen.getByRole('link', { name: 'Sign in with Google' })).toBeTruthy();
      setToken('T1');
    });
    await waitFor(() => expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toBeTruthy());
    expect(screen.queryByRole('link', { name: 'Sign in with Google' })).toBeNull();
    expect(errors).toEqual([]);
    root.remove();
  });
});
