import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * False while the prerendered landing page is rendered (on the server, and while the client
 * hydrates it), true afterwards and in any render that is not a hydration. Lets the first
 * client render produce exactly the prerendered HTML (signed-out, forms still loading) and
 * switch right after hydration, so hydration never mismatches.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
