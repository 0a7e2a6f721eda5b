import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK, type JWTVerifyGetKey } from 'jose';
import { ConfigError, type Db } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import {
  findCurrentSigningKey,
  insertSigningKey,
  listPublishedSigningKeys,
  lockSigningKeys,
  retireSigningKeys,
} from '../db/signing-key.repository.js';

/** How long a retired key stays published (well beyond the 15-minute access token). */
export const RETIRED_KEY_GRACE_MS = 24 * 3600_000;

interface PublishedKey {
  kid: string;
  publicJwk: JWK;
  key: KeyObject;
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

/** Reads JWT_PRIVATE_KEY: a PKCS8 PEM (literal `\n` allowed) or a private JWK as JSON. */
export function parsePrivateKey(value: string): KeyObject {
  const text = value.trim();
  let key: KeyObject;
  try {
    if (text.startsWith('{'))
      key = createPrivateKey({
        key: JSON.parse(text) as import('node:crypto').JsonWebKey,
        format: 'jwk',
      });
    else key = createPrivateKey({ key: text.replace(/\\n/g, '\n'), format: 'pem' });
  } catch (err) {
    throw new ConfigError('identity', [
      `JWT_PRIVATE_KEY: not a PKCS8 PEM or private JWK (${(err as Error).message})`,
    ]);
  }
  if (!isP256(key))
    throw new ConfigError('identity', ['JWT_PRIVATE_KEY: must be an EC P-256 key (ES256)']);
  return key;
}

function parsePreviousKeys(value: string | undefined): JWK[] {
  if (!value) return [];
  try {
    const parsed = JSON.parse(value) as { keys?: JWK[] } | JWK[];
    const keys = Array.isArray(parsed) ? parsed : (parsed.keys ?? []);
    return keys.map((k) => {
      const pub = createPublicKey({ key: k as import('node:crypto').JsonWebKey, format: 'jwk' });
      if (!isP256(pub)) throw new Error('not a P-256 key');
      return k;
    });
  } catch (err) {
    throw new ConfigError('identity', [
      `JWT_PREVIOUS_PUBLIC_KEYS: not a JWKS of P-256 public keys (${(err as Error).message})`,
    ]);
  }
}

function publicJwkOf(key: KeyObject): JWK {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const { kty, crv, x, y } = pub.export({ format: 'jwk' }) as JWK;
  return { kty, crv, x, y };
}

async function published(jwk: JWK, kid?: string): Promise<PublishedKey> {
  const bare: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const id = kid ?? (await calculateJwkThumbprint(bare));
  return {
    kid: id,
    publicJwk: { ...bare, kid: id, alg: 'ES256', use: 'sig' },
    key: createPublicKey({ key: bare as import('node:crypto').JsonWebKey, format: 'jwk' }),
  };
}

/**
 * The access-token signing keys. The current key comes from JWT_PRIVATE_KEY, else from the
 * identity schema (generated once, so restarts keep sessions). The JWKS publishes the current
 * key, keys retired in the last day and JWT_PREVIOUS_PUBLIC_KEYS, each with its `kid`.
 */
export class KeyStore {
  private current?: SigningKey;
  private keys = new Map<string, PublishedKey>();
  private lastReload = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: { privateKey?: string; previousPublicKeys?: string },
  ) {}

  async init(): Promise<void> {
    if (this.opts.privateKey) {
      const privateKey = parsePrivateKey(this.opts.privateKey);
      const pub = await published(publicJwkOf(privateKey));
      this.current = { kid: pub.kid, privateKey };
      // Generated keys used before switching to an env key stay published for the grace period.
      await retireSigningKeys(this.db);
    } else {
      this.current = await this.ensureGeneratedKey();
    }
    await this.reload();
  }

  private async ensureGeneratedKey(): Promise<SigningKey> {
    return this.db.transaction(async (tx) => {
      // Replicas starting together agree on one key.
      await lockSigningKeys(tx);
      const row = await findCurrentSigningKey(tx);
      if (row?.privateJwk) {
        return {
          kid: row.kid,
          privateKey: createPrivateKey({
            key: row.privateJwk as import('node:crypto').JsonWebKey,
            format: 'jwk',
          }),
        };
      }
      return insertGeneratedKey(tx);
    });
  }

  /** Makes a new generated key current; the old one stays published for a day. */
  async rotate(): Promise<string> {
    if (this.opts.privateKey)
      throw new Error(
        'JWT_PRIVATE_KEY is set: rotate by changing it and listing the old public key in JWT_PREVIOUS_PUBLIC_KEYS',
      );
    this.current = await this.db.transaction(async (tx) => {
      await lockSigningKeys(tx);
      await retireSigningKeys(tx);
      return insertGeneratedKey(tx);
    });
    await this.reload();
    return this.current.kid;
  }

  private async reload(): Promise<void> {
    this.lastReload = Date.now();
    const keys = new Map<string, PublishedKey>();
    if (this.current) {
      const cur = await published(publicJwkOf(this.current.privateKey), this.current.kid);
      keys.set(cur.kid, cur);
    }
    const rows = await listPublishedSigningKeys(
      this.db,
      new Date(Date.now() - RETIRED_KEY_GRACE_MS),
    );
    for (const r of rows)
      if (!keys.has(r.kid)) keys.set(r.kid, await published(r.publicJwk as JWK, r.kid));
    for (const jwk of parsePreviousKeys(this.opts.previousPublicKeys)) {
      const p = await published(jwk, typeof jwk.kid === 'string' ? jwk.kid : undefined);
      if (!keys.has(p.kid)) keys.set(p.kid, p);
    }
    this.keys = keys;
  }

  signingKey(): SigningKey {
    if (!this.current) throw new Error('KeyStore not initialised');
    return this.current;
  }

  jwks(): { keys: JWK[] } {
    return { keys: [...this.keys.values()].map((k) => k.publicJwk) };
  }

  /** jose key getter for verifying identity's own tokens locally (by `kid`). */
  readonly getKey: JWTVerifyGetKey = async (header) => {
    let k = header.kid ? this.keys.get(header.kid) : undefined;
    if (!k && header.kid && Date.now() - this.lastReload > 30_000) {
      // Another replica may have rotated.
      await this.reload();
      k = this.keys.get(header.kid);
    }
    if (!k) throw Object.assign(new Error('no matching key'), { code: 'ERR_JWKS_NO_MATCHING_KEY' });
    return k.key;
  };
}

async function insertGeneratedKey(db: Db | Tx): Promise<SigningKey> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pub = publicJwkOf(privateKey);
  const kid = await calculateJwkThumbprint(pub);
  await insertSigningKey(db, {
    kid,
    privateJwk: privateKey.export({ format: 'jwk' }) as Record<string, unknown>,
    publicJwk: pub as Record<string, unknown>,
  });
  return { kid, privateKey };
}
