import type { AppThunkDispatch } from '../lib/job-cache';
import { makeStore } from '../app/store';

/**
 * The app's real store, typed as tests of the cache use it: thunks dispatched (the API slice
 * injects itself at run time, so the store's own type does not name it) and the state handed to
 * the endpoints' selectors.
 */
export function cacheStore() {
  return makeStore() as unknown as { dispatch: AppThunkDispatch; getState: () => never };
}
