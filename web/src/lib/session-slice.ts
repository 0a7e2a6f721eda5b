import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { getToken } from './tokens';

export interface SessionState {
  /** A token is stored (the user object itself lives in the RTK Query cache: GET /api/me). */
  signedIn: boolean;
  /** Message for the login screen, e.g. after auth-expired. */
  notice: string | null;
  /** How the last session ended: a Logout goes home, anything else to the login screen. */
  lastExit: 'logout' | null;
  /** The account's deletion was just confirmed for this date (ISO): say so instead of "sign in". */
  deletionDue: string | null;
}

const initialState = (): SessionState => ({
  signedIn: Boolean(getToken()),
  notice: null,
  lastExit: null,
  deletionDue: null,
});

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    signedIn(state) {
      state.signedIn = true;
      state.notice = null;
      state.lastExit = null;
      state.deletionDue = null;
    },
    /** "Delete my account" confirmed: every sign-in has ended; the deletion is due then. */
    accountDeleted(state, action: PayloadAction<string>) {
      state.signedIn = false;
      state.notice = null;
      state.lastExit = null;
      state.deletionDue = action.payload;
    },
    loggedOut(state) {
      state.signedIn = false;
      state.notice = null;
      state.lastExit = 'logout';
    },
    signedOut(state, action: PayloadAction<string | null | undefined>) {
      state.signedIn = false;
      state.notice = action.payload ?? null;
      state.lastExit = null;
    },
    clearNotice(state) {
      state.notice = null;
    },
  },
});

export const { signedIn, signedOut, loggedOut, clearNotice, accountDeleted } = sessionSlice.actions;
