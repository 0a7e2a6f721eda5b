import type { Dispatch } from '@reduxjs/toolkit';
import { startTransition, useEffect, useRef, useState } from 'react';
import { useDispatch } from 'react-redux';
import { useNavigate } from 'react-router';
import { returnTo } from '../lib/return-to';
import { AUTH_EXPIRED_EVENT, trySilentRefresh, xsrfToken } from '../lib/base-query';
import { errorMessage } from '../lib/error-message';
import { loggedOut, signedIn, signedOut } from '../lib/session-slice';
import { onLogoutInOtherTab } from '../lib/session-sync';
import { clearTokens, getToken, setToken } from '../lib/tokens';
import { exchangeSession } from '../features/auth/api/create-session';
import {
  SESSION_EXPIRED,
  TESTER_ENTRANCE_CODES,
  authErrorMessage,
} from '../features/auth/auth-errors';

export interface AuthErrorInfo {
  code: string;
  message: string;
}

/** Drops the RTK Query cache if the API slice has been loaded (the import is then instant). */
export async function resetCache(dispatch: Dispatch) {
  const { resetApiState } = await import('../lib/api');
  dispatch(resetApiState());
}

function clearHash() {
  const { pathname, search } = window.location;
  window.history.replaceState(window.history.state, '', `${pathname}${search}`);
}

/**
 * Reads `#session_id=S` (sign-in finished: trade it for a token, clear the hash, open the
 * dashboard) and `#auth_error=CODE`; restores a session from the refresh cookie when no
 * token is stored; on 'auth-expired' clears the user and shows the login screen; on a
 * Logout in another tab signs this tab out as well.
 */
export function useSessionBootstrap() {
  const dispatch = useDispatch();
  const navigate = useNavigate();
  const [authError, setAuthError] = useState<AuthErrorInfo | null>(null);
  // (No window when the landing page is prerendered: nothing to exchange there.)
  const [exchanging, setExchanging] = useState(
    () => typeof window !== 'undefined' && /session_id=/.test(window.location.hash),
  );

  // A reload with no stored token but a refresh cookie: the session is being restored. Until the
  // refresh answers, signed-in screens show a loading state, not the sign-in page.
  const [restoring, setRestoring] = useState(
    () =>
      typeof window !== 'undefined' &&
      !/(session_id|auth_error)=/.test(window.location.hash) &&
      !getToken() &&
      Boolean(xsrfToken()),
  );

  const started = useRef(false);

  useEffect(() => {
    // StrictMode runs effects twice in development; the session id is single-use.
    if (started.current) return;
    started.current = true;
    const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
    const sessionId = params.get('session_id');
    const code = params.get('auth_error');
    if (sessionId) {
      clearHash();
      void (async () => {
        const res = await exchangeSession(sessionId);
        const token = (res.data as { access_token?: string } | undefined)?.access_token;
        if (token) {
          setToken(token);
          try {
            await resetCache(dispatch);
            dispatch(signedIn());
          } finally {
            // One transition with the router's: "Signing you in…" stays up until the dashboard's
            // route renders, so the page the sign-in came back to (the landing page) never
            // flashes; and it ends even if the API module fails to load (the token is stored,
            // the reload that follows restores the session).
            startTransition(() => {
              setExchanging(false);
              navigate(returnTo(), { replace: true });
            });
          }
        } else {
          setExchanging(false);
          setAuthError({
            code: 'google_failed',
            message: errorMessage(res.error, 'Google authentication failed'),
          });
        }
      })();
    } else if (code) {
      clearHash();
      setAuthError({ code, message: authErrorMessage(code) ?? 'Google authentication failed' });
      if (TESTER_ENTRANCE_CODES.includes(code)) navigate('/login/tester', { replace: true });
    } else {
      void trySilentRefresh()
        .then((t) => {
          if (t) dispatch(signedIn());
        })
        .finally(() => setRestoring(false));
    }
    // Runs once at start.
  }, []);

  useEffect(() => {
    const onExpired = () => {
      void resetCache(dispatch);
      dispatch(signedOut(SESSION_EXPIRED));
      navigate('/login', { replace: true });
    };
    window.addEventListener(AUTH_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(AUTH_EXPIRED_EVENT, onExpired);
  }, [dispatch, navigate]);

  // Logout in another tab of this browser: back to the signed-out view here too.
  useEffect(
    () =>
      onLogoutInOtherTab(() => {
        clearTokens();
        void resetCache(dispatch);
        dispatch(loggedOut()); // the /dashboard route then sends the browser home
      }),
    [dispatch],
  );

  return { authError, exchanging, restoring };
}
