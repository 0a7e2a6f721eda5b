import { combineSlices, createDynamicMiddleware } from '@reduxjs/toolkit';
import { sessionSlice } from './session-slice';
import { uiSlice } from './ui-slice';

/**
 * The root reducer and a dynamic middleware slot. The RTK Query API slice (lib/api.ts) injects
 * itself here when a feature that needs it is first loaded, so the landing page's initial
 * JavaScript carries Redux but not RTK Query (RTK "code splitting" recipe).
 */
export const rootReducer = combineSlices(sessionSlice, uiSlice);
export const dynamicMiddleware = createDynamicMiddleware();
