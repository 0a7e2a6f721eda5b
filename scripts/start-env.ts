/**
 * The embedded defaults of `npm start` (ARCHITECTURE.md "Fixed contracts"), kept apart from
 * start.ts so tests can check them: what every service gets, and what the gateway (the edge)
 * gets on top.
 */
type Env = Record<string, string | undefined>;

export const DEV_SIGN_IN_WARNING =
  'DEV SIGN-IN IS ON: anyone who can reach this server can sign in as anyone, admin@gmail.com (the admin) included. ' +
  'It listens on 127.0.0.1 only unless HOST is set; configure Google (GOOGLE_CLIENT_ID/SECRET) for anything beyond this machine.';

/** Settings every service of `npm start` shares (before Redis and the internal URLs are known). */
export function embeddedEnv(processEnv: Env): Env {
  const base: Env = { ...processEnv };
  const production = base.NODE_ENV === 'production';
  base.NODE_ENV ??= 'development';
  base.DATA_DIR ??= '.data';
  base.PAYMENTS_PROVIDER ??= 'local';
  if (!production) base.ADMIN_EMAIL ??= 'admin@gmail.com';
  // The embedded default offers the development sign-in; with Google configured it is gone.
  if (!production && !base.GOOGLE_CLIENT_ID) base.DEV_SIGN_IN ??= 'true';
  // The services sit behind the gateway on loopback and believe the address it forwards.
  base.TRUST_PROXY = 'true';
  const port = Number(base.PORT ?? 8080);
  base.PUBLIC_URL ??= `http://localhost:${port}`;
  // Local webhook receivers (http://127.0.0.1:...) for trying webhooks on this machine; never outside development.
  if (!production) base.WEBHOOKS_ALLOW_PRIVATE ??= 'true';
  return base;
}

/** The gateway's settings: it is the edge, so it binds loopback and trusts no proxy headers unless told to. */
export function gatewayEnv(base: Env, processEnv: Env): Env {
  return {
    ...base,
    PORT: String(Number(base.PORT ?? 8080)),
    HOST: processEnv.HOST ?? '127.0.0.1',
    TRUST_PROXY: processEnv.TRUST_PROXY ?? 'false',
  };
}
