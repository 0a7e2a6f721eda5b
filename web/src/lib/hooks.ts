import { useCallback } from 'react';
import { useDispatch, useSelector } from 'react-redux';
import type { SessionState } from './session-slice';
import { statusShown, toastAdded, type ToastKind, type UiState } from './ui-slice';

interface SharedState {
  session: SessionState;
  ui: UiState;
}

export const useSharedSelector = useSelector.withTypes<SharedState>();

/** Toasts (5 s) for errors and results; the status bar (3 s) for progress notes. */
export function useNotify() {
  const dispatch = useDispatch();
  const toast = useCallback(
    (text: string, kind: ToastKind = 'error') => dispatch(toastAdded(text, kind)),
    [dispatch],
  );
  const status = useCallback((text: string) => dispatch(statusShown(text)), [dispatch]);
  return { toast, status };
}
