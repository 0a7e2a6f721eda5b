import { configureStore } from '@reduxjs/toolkit';
import { setupListeners } from '@reduxjs/toolkit/query';
import { dynamicMiddleware, rootReducer } from '../lib/store-registry';

export function makeStore() {
  const store = configureStore({
    reducer: rootReducer,
    middleware: (gDM) => gDM().concat(dynamicMiddleware.middleware),
  });
  // Window focus and network-back events for refetchOnFocus / refetchOnReconnect.
  setupListeners(store.dispatch);
  return store;
}

export type AppStore = ReturnType<typeof makeStore>;
export type RootState = ReturnType<typeof rootReducer>;
export type AppDispatch = AppStore['dispatch'];
