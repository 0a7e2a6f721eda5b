/* Renders a component with the real store and a memory router. */
import './setup';
import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { makeStore } from '../app/store';
import { Toaster } from '../components/toaster';

export function renderWithStore(ui: ReactElement, { route = '/' }: { route?: string } = {}) {
  const store = makeStore();
  const result = render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[route]}>
        {ui}
        <Toaster />
      </MemoryRouter>
    </Provider>,
  );
  return { store, ...result };
}
