import { configureStore } from '@reduxjs/toolkit';
import { dynamicMiddleware, rootReducer } from '../lib/store-registry';

export function makeStore() {
  return configureStore({
    reducer: rootReducer,
    middleware: (gDM) => gDM().concat(dynamicMiddleware.middleware),
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type RootState = ReturnType<typeof rootReducer>;
export type AppDispatch = AppStore['dispatch'];
