import {
  createECDH,
  createHmac,
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';
import type { RequestHandler } from 'express';
import { ConfigError } from './config.js';
import { AppError } from './errors.js';

const AUDIENCE = 'htm-internal';
const ALG = 'ES256';
/** Lifetime of a minted token, and the most any token may claim (exp − iat) or have lived (now − iat). */
export const SERVICE_TOKEN_TTL_SECONDS = 60;
export const SERVICE_TOKEN_MAX_AGE_SECONDS = 120;
/** The services that may hold a service-token key (the key id is the service's name). */
const SERVICE_NAMES = ['identity', 'jobs', 'payments', 'admin'];

/**
 * Service-to-service keys. Every calling service signs with its OWN ES256 private key; a
 * receiving service verifies with the public keys of the callers it accepts, so holding one
 * service's key does not let anyone speak as another. The gateway holds none.
 *
 * Production: `SERVICE_TOKEN_PRIVATE_KEY` (this service's P-256 key, PKCS8 PEM or private JWK)
 * and `SERVICE_TOKEN_PUBLIC_KEYS` (JSON `{"jobs": key | [key, previousKey], ...}`, each a PEM
 * or a public JWK) are required. Development and tests with neither set: each service's key is
 * derived from SERVICE_TOKEN_SECRET and its name, so `npm start`, docker-compose and the tests
 * need no key setup (the development secret is public: never in production).
 */
export interface ServiceTokenConfig {
  NODE_ENV: string;
  SERVICE_TOKEN_SECRET: string;
  SERVICE_TOKEN_PREVIOUS_SECRET?: string;
  SERVICE_TOKEN_PRIVATE_KEY?: string;
  SERVICE_TOKEN_PUBLIC_KEYS?: string;
}

function p256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

function parseKey(text: string, kind: 'private' | 'public'): KeyObject {
  const t = text.trim();
  const key = t.startsWith('{')
    ? kind === 'private'
      ? createPrivateKey({ key: JSON.parse(t) as JsonWebKey, format: 'jwk' })
      : createPublicKey({ key: JSON.parse(t) as JsonWebKey, format: 'jwk' })
    : kind === 'private'
      ? createPrivateKey({ key: t.replace(/\\n/g, '\n'), format: 'pem' })
      : createPublicKey({ key: t.replace(/\\n/g, '\n'), format: 'pem' });
  if (!p256(key)) throw new Error('not an EC P-256 key');
  return key;
}

/** The development key of `service`: a P-256 private key derived from the shared development secret. */
export function devServiceKey(secret: string, service: string): KeyObject {
  const d = createHmac('sha256', secret).update(`service-token-key:${service}`).digest();
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const pub = ecdh.getPublicKey();
  const b64 = (b: Buffer) => b.toString('base64url');
  return createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: b64(d),
      x: b64(pub.subarray(1, 33)),
      y: b64(pub.subarray(33, 65)),
    },
    format: 'jwk',
  });
}

/** One service's signing key and the public keys of the services it accepts calls from. */
export class ServiceKeyring {
  constructor(
    readonly self: string,
    private readonly privateKey: KeyObject | undefined,
    private readonly publicKeys: ReadonlyMap<string, readonly KeyObject[]>,
  ) {}

  /**
   * From configuration: `self` signs its calls (when `signs`), and accepts calls from `acceptsFrom`.
   * In production a missing or bad key stops the service at start, naming the key.
   */
  static fromConfig(
    self: string,
    cfg: ServiceTokenConfig,
    opts: { signs?: boolean; acceptsFrom?: readonly string[] } = {},
  ): ServiceKeyring {
    const problems: string[] = [];
    const production = cfg.NODE_ENV === 'production';
    const dev = !production && !cfg.SERVICE_TOKEN_PRIVATE_KEY && !cfg.SERVICE_TOKEN_PUBLIC_KEYS;
    const secrets = [
      cfg.SERVICE_TOKEN_SECRET,
      ...(cfg.SERVICE_TOKEN_PREVIOUS_SECRET ? [cfg.SERVICE_TOKEN_PREVIOUS_SECRET] : []),
    ];
    let privateKey: KeyObject | undefined;
    const publicKeys = new Map<string, KeyObject[]>();
    if (dev) {
      privateKey = devServiceKey(cfg.SERVICE_TOKEN_SECRET, self);
      for (const s of opts.acceptsFrom ?? [])
        publicKeys.set(
          s,
          secrets.map((secret) => createPublicKey(devServiceKey(secret, s))),
        );
      return new ServiceKeyring(self, privateKey, publicKeys);
    }
    if (opts.signs) {
      if (!cfg.SERVICE_TOKEN_PRIVATE_KEY)
        problems.push(
          `SERVICE_TOKEN_PRIVATE_KEY: must be set (the ${self} service's own EC P-256 key; see docs/operations.md)`,
        );
      else {
        try {
          privateKey = parseKey(cfg.SERVICE_TOKEN_PRIVATE_KEY, 'private');
        } catch (err) {
          problems.push(
            `SERVICE_TOKEN_PRIVATE_KEY: not an EC P-256 PKCS8 PEM or private JWK (${(err as Error).message})`,
          );
        }
      }
    }
    if (opts.acceptsFrom?.length) {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(cfg.SERVICE_TOKEN_PUBLIC_KEYS ?? '{}') as Record<string, unknown>;
      } catch {
        problems.push('SERVICE_TOKEN_PUBLIC_KEYS: not JSON ({"service": "PEM or JWK", ...})');
      }
      for (const s of opts.acceptsFrom) {
        const raw = parsed[s];
        const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((k) =>
          typeof k === 'string' ? k : JSON.stringify(k),
        );
        if (!list.length) {
          problems.push(
            `SERVICE_TOKEN_PUBLIC_KEYS: must name the public key of "${s}" (the ${self} service accepts its calls)`,
          );
          continue;
        }
        try {
          publicKeys.set(
            s,
            list.map((k) => parseKey(k, 'public')),
          );
        } catch (err) {
          problems.push(
            `SERVICE_TOKEN_PUBLIC_KEYS: the key of "${s}" is not an EC P-256 public key (${(err as Error).message})`,
          );
        }
      }
    }
    if (problems.length) throw new ConfigError(self, problems);
    return new ServiceKeyring(self, privateKey, publicKeys);
  }

  /** A development keyring (keys derived from `secret`), for tests and stand-ins. */
  static dev(
    self: string,
    secret: string | readonly string[],
    acceptsFrom: readonly string[] = [],
  ): ServiceKeyring {
    const secrets = typeof secret === 'string' ? [secret] : [...secret];
    return ServiceKeyring.fromConfig(
      self,
      {
        NODE_ENV: 'development',
        SERVICE_TOKEN_SECRET: secrets[0],
        SERVICE_TOKEN_PREVIOUS_SECRET: secrets[1],
      },
      { signs: true, acceptsFrom },
    );
  }

  /** A short-lived token this service presents to another's /internal/* routes. */
  async mint(ttlSeconds = SERVICE_TOKEN_TTL_SECONDS): Promise<string> {
    if (!this.privateKey) throw new Error(`the ${this.self} service has no service-token key`);
    return new SignJWT({ svc: this.self })
      .setProtectedHeader({ alg: ALG, kid: this.self, typ: 'JWT' })
      .setSubject(this.self)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.privateKey);
  }

  keysOf(service: string): readonly KeyObject[] {
    return this.publicKeys.get(service) ?? [];
  }
}

/** Mints a development service token for `from` (keys derived from `secret`); tests and stand-ins. */
export function mintServiceToken(
  keys: ServiceKeyring | string,
  from?: string,
  ttlSeconds?: number,
): Promise<string> {
  const ring = typeof keys === 'string' ? ServiceKeyring.dev(from ?? 'unknown', keys) : keys;
  return ring.mint(ttlSeconds);
}

/**
 * Guards /internal/* routes: only the named services, each verified with ITS public key (ES256
 * only), with `sub` equal to the key id, `exp` and `iat` present, at most two minutes old and
 * claiming at most two minutes of life. `keys` may be a development secret (or a list, during
 * a rotation) for tests and stand-ins.
 */
export function requireServiceToken(
  keys: ServiceKeyring | string | readonly string[],
  allowed: string[],
): RequestHandler {
  const ring =
    keys instanceof ServiceKeyring ? keys : ServiceKeyring.dev('receiver', keys, allowed);
  return async (req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token)
      return next(AppError.unauthorized('Service token required.', 'service_token_required'));
    const invalid = () => AppError.unauthorized('Invalid service token.', 'invalid_service_token');
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return next(invalid());
    }
    if (typeof kid !== 'string' || !kid) return next(invalid());
    if (!allowed.includes(kid))
      return next(
        SERVICE_NAMES.includes(kid)
          ? AppError.forbidden('This service may not call this route.')
          : invalid(),
      );
    for (const key of ring.keysOf(kid)) {
      try {
        const { payload } = await jwtVerify(token, key, {
          audience: AUDIENCE,
          algorithms: [ALG],
          subject: kid,
          requiredClaims: ['exp', 'iat', 'sub'],
          maxTokenAge: `${SERVICE_TOKEN_MAX_AGE_SECONDS}s`,
        });
        if ((payload.exp as number) - (payload.iat as number) > SERVICE_TOKEN_MAX_AGE_SECONDS)
          return next(invalid());
        (req as { callerService?: string }).callerService = kid;
        return next();
      } catch {
        /* try the caller's next key (rotation) */
      }
    }
    next(invalid());
  };
}
