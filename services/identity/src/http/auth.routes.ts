import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import {
  emailSchema,
  sessionExchangeBodySchema,
  signInIntentSchema,
  type SignInIntent,
} from '@htm/contracts';
import { AppError, bearerToken, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { devSignInEnabled, googleConfigured, webRedirect } from '../config.js';
import { completeSignIn, type SignInAccount, type SignInResult } from '../domain/sign-in.js';
import {
  exchangeSession,
  signOut,
  rotateRefreshToken,
  signinNonceFor,
} from '../domain/sessions.js';
import { endEverySignIn, endSignIn, listSignIns } from '../domain/sign-ins.js';
import {
  clearSessionCookies,
  clearSigninNonceCookie,
  sessionCookie,
  setSessionCookies,
  setSigninNonceCookie,
  SIGNIN_NONCE_COOKIE,
  XSRF_HEADER,
} from './cookies.js';
import { DEV_PAGE_CSP, devSignInPage } from './dev-sign-in.page.js';
import { createGooglePassport } from './google.js';
import { authRateLimit } from './rate-limit.js';

const intentQuery = z.object({ intent: signInIntentSchema });
const devLoginQuery = z.object({
  email: emailSchema,
  name: z.string().trim().max(200).optional(),
  intent: signInIntentSchema,
});

function cookie(req: Request, name: string): string | undefined {
  const v = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
}

function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
}

/**
 * The browser lands on the web app with a single-use session id, or with an error code. With the
 * id goes an httpOnly nonce cookie that POST /api/auth/session requires: an id works only in the
 * browser this redirect went to (no login CSRF with someone else's id).
 */
function redirectAfterSignIn(deps: IdentityDeps, res: Response, result: SignInResult): void {
  noStore(res);
  if (result.ok) {
    setSigninNonceCookie(res, deps.config, signinNonceFor(deps, result.sessionId));
    res.redirect(
      302,
      webRedirect(deps.config, `session_id=${encodeURIComponent(result.sessionId)}`),
    );
  } else res.redirect(302, webRedirect(deps.config, `auth_error=${result.error}`));
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * /api/auth/* takes JSON only: a cross-site HTML form can send urlencoded, multipart or text
 * bodies without a preflight, never application/json. (An empty body, as refresh and logout
 * send, carries no type.)
 */
const jsonOnly = (req: Request, _res: Response, next: NextFunction) => {
  if (!UNSAFE.has(req.method)) return next();
  const hasBody =
    Number(req.headers['content-length'] ?? 0) > 0 ||
    req.headers['transfer-encoding'] !== undefined;
  if (!hasBody && !req.headers['content-type']) return next();
  if (req.is('application/json')) return next();
  next(
    new AppError('unsupported_type', 'Send JSON (Content-Type: application/json).', {
      code: 'json_required',
    }),
  );
};

export function authRoutes(deps: IdentityDeps): Router {
  const r = catalogueRoutes('identity');
  const cfg = deps.config;
  const signinLimit = authRateLimit(deps.redis, cfg, 'signin');
  const sessionLimit = authRateLimit(deps.redis, cfg, 'session');
  const refreshLimit = authRateLimit(deps.redis, cfg, 'refresh');
  const google = googleConfigured(cfg) ? createGooglePassport(cfg) : undefined;
  const devSignIn = devSignInEnabled(cfg);
  r.use('/api/auth', jsonOnly);

  r.get('/api/auth/google', signinLimit, (req: Request, res: Response, next: NextFunction) => {
    const { intent } = parseOrThrow(intentQuery, req.query);
    if (!google) {
      if (!devSignIn)
        throw new AppError('unavailable', 'Sign-in is not configured.', {
          code: 'signin_unavailable',
        });
      noStore(res);
      res.setHeader('Content-Security-Policy', DEV_PAGE_CSP);
      res.type('html').send(devSignInPage(intent));
      return;
    }
    google.authenticate('google', {
      session: false,
      state: { intent } as unknown as string,
      prompt: 'select_account',
    })(req, res, next);
  });

  if (google) {
    r.get('/api/auth/google/callback', signinLimit, (req: Request, res: Response) => {
      const fail = (why: unknown) => {
        deps.logger.warn(
          { err: why instanceof Error ? why.message : why },
          'Google sign-in failed',
        );
        redirectAfterSignIn(deps, res, { ok: false, error: 'google_failed' });
      };
      google.authenticate(
        'google',
        { session: false },
        (
          err: unknown,
          account: SignInAccount | false,
          info: { state?: { intent?: SignInIntent } } | undefined,
        ) => {
          if (err || !account) return fail(err ?? info);
          const intent = info?.state?.intent ?? 'poster';
          completeSignIn(deps, account, intent).then(
            (result) => redirectAfterSignIn(deps, res, result),
            (e: unknown) => fail(e),
          );
        },
      )(req, res, (e: unknown) => fail(e));
    });
  } else r.without('get', '/api/auth/google/callback');

  if (devSignIn) {
    /** Fixed contract (ARCHITECTURE.md): behaves exactly like a Google callback for that account. */
    r.get('/api/auth/dev/login', signinLimit, async (req, res) => {
      const q = parseOrThrow(devLoginQuery, req.query);
      const account: SignInAccount = {
        sub: `dev:${q.email}`,
        email: q.email,
        emailVerified: true,
        name: q.name ?? '',
      };
      redirectAfterSignIn(deps, res, await completeSignIn(deps, account, q.intent));
    });
  } else r.without('get', '/api/auth/dev/login');

  r.post('/api/auth/session', sessionLimit, async (req, res) => {
    const body = parseOrThrow(sessionExchangeBodySchema, req.body ?? {});
    noStore(res);
    const issued = await exchangeSession(
      deps,
      body.session_id,
      cookie(req, SIGNIN_NONCE_COOKIE),
      req.get('user-agent'),
    );
    clearSigninNonceCookie(res, cfg);
    setSessionCookies(res, cfg, issued);
    res.json({ access_token: issued.accessToken });
  });

  r.post('/api/auth/refresh', refreshLimit, async (req, res) => {
    noStore(res);
    try {
      const issued = await rotateRefreshToken(deps, {
        refreshToken: sessionCookie(req, cfg, 'refresh'),
        xsrfHeader: req.get(XSRF_HEADER),
        xsrfCookie: sessionCookie(req, cfg, 'xsrf'),
        userAgent: req.get('user-agent'),
      });
      setSessionCookies(res, cfg, issued);
      res.json({ access_token: issued.accessToken });
    } catch (err) {
      // A dead or reused refresh token: the browser should forget it. (A wrong XSRF header changes nothing.)
      if (err instanceof AppError && err.status === 401 && err.code !== 'xsrf_mismatch')
        clearSessionCookies(res, cfg);
      throw err;
    }
  });

  r.post('/api/auth/logout', async (req, res) => {
    await signOut(deps, {
      refreshToken: sessionCookie(req, cfg, 'refresh'),
      accessToken: bearerToken(req.headers.authorization),
    });
    noStore(res);
    clearSessionCookies(res, cfg);
    res.json({ success: true });
  });

  /** "Sign-ins": the caller's active sign-ins, each revocable; "Log out everywhere". */
  r.get('/api/auth/sessions', deps.auth.authenticate, async (req, res) => {
    noStore(res);
    res.json({ sessions: await listSignIns(deps, callerOf(req)) });
  });

  r.delete('/api/auth/sessions/{id}', deps.auth.authenticate, async (req, res) => {
    const { current } = await endSignIn(deps, callerOf(req), String(req.params.id));
    noStore(res);
    if (current) clearSessionCookies(res, cfg);
    res.json({ success: true });
  });

  r.post('/api/auth/logout-all', refreshLimit, async (req, res) => {
    noStore(res);
    const ended = await endEverySignIn(deps, {
      refreshToken: sessionCookie(req, cfg, 'refresh'),
      xsrfHeader: req.get(XSRF_HEADER),
      xsrfCookie: sessionCookie(req, cfg, 'xsrf'),
    });
    clearSessionCookies(res, cfg);
    res.json({ success: true, ended });
  });

  return r.router;
}
