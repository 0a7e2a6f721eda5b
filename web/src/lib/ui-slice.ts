import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

export type ToastKind = 'error' | 'success' | 'info';
export interface Toast {
  id: number;
  text: string;
  kind: ToastKind;
}
export interface UiState {
  toasts: Toast[];
  status: { id: number; text: string } | null;
}

let seq = 0;
const initialState: UiState = { toasts: [], status: null };

export const uiSlice = createSlice({
  name: 'ui',
  initialState,
  reducers: {
    toastAdded: {
      reducer(state, action: PayloadAction<Toast>) {
        // One message at a time: a toast replaces the status banner (they never stack).
        state.status = null;
        state.toasts.push(action.payload);
        if (state.toasts.length > 4) state.toasts.shift();
      },
      prepare(text: string, kind: ToastKind = 'error') {
        return { payload: { id: ++seq, text, kind } };
      },
    },
    toastDismissed(state, action: PayloadAction<number>) {
      state.toasts = state.toasts.filter((t) => t.id !== action.payload);
    },
    statusShown: {
      reducer(state, action: PayloadAction<{ id: number; text: string }>) {
        // ...and the status banner replaces the toasts.
        state.toasts = [];
        state.status = action.payload;
      },
      prepare(text: string) {
        return { payload: { id: ++seq, text } };
      },
    },
    statusCleared(state, action: PayloadAction<number>) {
      if (state.status?.id === action.payload) state.status = null;
    },
  },
});

export const { toastAdded, toastDismissed, statusShown, statusCleared } = uiSlice.actions;
