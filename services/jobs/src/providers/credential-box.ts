import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Tracker tokens at rest: AES-256-GCM with a 96-bit random IV, stored as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). The key is TRACKER_CREDENTIALS_KEY (32 bytes, base64), else
 * derived from FILE_URL_SECRET (its own secret in production) or, in development, SERVICE_TOKEN_SECRET.
 */
export class CredentialBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the tracker credentials key must be 32 bytes');
  }

  static fromConfig(cfg: {
    TRACKER_CREDENTIALS_KEY?: string;
    FILE_URL_SECRET?: string;
    SERVICE_TOKEN_SECRET: string;
  }): CredentialBox {
    const key = cfg.TRACKER_CREDENTIALS_KEY
      ? Buffer.from(cfg.TRACKER_CREDENTIALS_KEY, 'base64')
      : createHmac('sha256', cfg.FILE_URL_SECRET ?? cfg.SERVICE_TOKEN_SECRET)
          .update('jobs-tracker-credentials')
          .digest();
    return new CredentialBox(key);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(context));
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return [
      'v1',
      iv.toString('base64url'),
      c.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  open(sealed: string, context: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || body === undefined)
      throw new Error('unknown credential format');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    d.setAAD(Buffer.from(context));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
  }
}
