import type { Request } from 'express';
import passport from 'passport';
import { Strategy as GoogleStrategy, type Profile } from 'passport-google-oauth20';
import type { SignInIntent } from '@htm/contracts';
import { googleCallbackUrl, type IdentityConfig } from '../config.js';
import type { SignInAccount } from '../domain/sign-in.js';
import { hmac, randomSecret, safeEqual } from '../domain/tokens.js';
import { OAUTH_STATE_COOKIE, stateCookieOptions } from './cookies.js';

const STATE_TTL_MS = 10 * 60_000;

type StoreCallback = (err: Error | null, state?: string) => void;
type VerifyCallback = (
  err: Error | null,
  ok: string | false,
  info?: { intent?: SignInIntent; message?: string },
) => void;

/**
 * OAuth `state` bound to the browser: a random nonce goes to Google, and the same nonce (with
 * the sign-in intent, the PKCE verifier and an expiry) sits in a signed, httpOnly, 10-minute
 * cookie. The callback is accepted only when both agree, which stops login CSRF; the PKCE
 * verifier never leaves the browser's cookie and the token request. No server-side session.
 */
export class CookieStateStore {
  constructor(
    private readonly secret: string,
    private readonly cfg: IdentityConfig,
  ) {}

  store(
    req: Request,
    verifier: string,
    state: { intent?: SignInIntent } | undefined,
    _meta: unknown,
    cb: StoreCallback,
  ): void {
    const nonce = randomSecret();
    const intent: SignInIntent = state?.intent === 'tester' ? 'tester' : 'poster';
    if (!/^[A-Za-z0-9_-]{43,128}$/.test(verifier)) return cb(new Error('unexpected PKCE verifier'));
    const payload = `${nonce}.${intent}.${Date.now() + STATE_TTL_MS}.${verifier}`;
    req.res?.cookie(
      OAUTH_STATE_COOKIE,
      `${payload}.${hmac(this.secret, 'oauth-state', payload)}`,
      stateCookieOptions(this.cfg),
    );
    cb(null, nonce);
  }

  verify(req: Request, provided: string | undefined, _meta: unknown, cb: VerifyCallback): void {
    const raw = (req.cookies as Record<string, string> | undefined)?.[OAUTH_STATE_COOKIE];
    const { maxAge: _ignored, ...clear } = stateCookieOptions(this.cfg);
    req.res?.clearCookie(OAUTH_STATE_COOKIE, clear);
    const parts = typeof raw === 'string' ? raw.split('.') : [];
    if (parts.length !== 5) return cb(null, false, { message: 'missing state cookie' });
    const [nonce, intent, exp, verifier, sig] = parts;
    const ok =
      safeEqual(sig, hmac(this.secret, 'oauth-state', `${nonce}.${intent}.${exp}.${verifier}`)) &&
      Number(exp) > Date.now() &&
      (intent === 'poster' || intent === 'tester') &&
      safeEqual(nonce, provided);
    if (!ok) return cb(null, false, { message: 'state mismatch' });
    cb(null, verifier, { intent: intent as SignInIntent });
  }
}

/** Google's profile to what sign-in needs (Google's `sub`, e-mail and whether Google verified it). */
export function accountFromProfile(profile: Profile): SignInAccount {
  const email = profile.emails?.[0];
  const verified = (email as { verified?: unknown } | undefined)?.verified;
  return {
    sub: profile.id,
    email: email?.value ?? '',
    emailVerified: verified === true || verified === 'true',
    name: profile.displayName ?? '',
  };
}

/** A private passport instance with the Google strategy (several apps can live in one process). */
export function createGooglePassport(cfg: IdentityConfig): passport.PassportStatic {
  const pp = new passport.Passport() as passport.PassportStatic;
  pp.use(
    'google',
    new GoogleStrategy(
      {
        clientID: cfg.GOOGLE_CLIENT_ID ?? '',
        clientSecret: cfg.GOOGLE_CLIENT_SECRET ?? '',
        callbackURL: googleCallbackUrl(cfg),
        authorizationURL: cfg.GOOGLE_AUTH_URL,
        tokenURL: cfg.GOOGLE_TOKEN_URL,
        userProfileURL: cfg.GOOGLE_USERINFO_URL,
        scope: ['openid', 'email', 'profile'],
        pkce: true,
        store: new CookieStateStore(cfg.AUTH_SECRET, cfg) as never,
      },
      (
        _accessToken: string,
        _refreshToken: string,
        profile: Profile,
        done: (err: Error | null, user?: SignInAccount) => void,
      ) => {
        done(null, accountFromProfile(profile));
      },
    ),
  );
  return pp;
}
