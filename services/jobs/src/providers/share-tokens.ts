import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Share-link tokens. A token is derived, never stored: HMAC-SHA256 (a key of its own, derived from
 * the file-link secret) over the job id and a random 128-bit nonce kept in the row, 256 bits in
 * base64url. The row keeps only the token's SHA-256, so the same link can be answered again to its
 * poster while a copy of the database alone opens nothing. Readers are found by that hash and the
 * hashes compared in constant time.
 */
export class ShareTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('jobs-share-links').digest();
  }

  static fromConfig(cfg: { FILE_URL_SECRET?: string; SERVICE_TOKEN_SECRET: string }): ShareTokens {
    const secret =
      cfg.FILE_URL_SECRET ??
      createHmac('sha256', cfg.SERVICE_TOKEN_SECRET).update('jobs-file-links').digest('base64url');
    return new ShareTokens(secret);
  }

  newNonce(): string {
    return randomBytes(16).toString('base64url');
  }

  token(jobId: string, nonce: string): string {
    return createHmac('sha256', this.key).update(`${jobId}.${nonce}`).digest('base64url');
  }

  /** SHA-256 of a token, hex: what the row stores and what a reader is looked up by. */
  hash(token: string): string {
    return createHash('sha256').update(token).digest('hex');
  }

  /** A token's shape (43 base64url characters): anything else is unknown without a database read. */
  wellFormed(token: string): boolean {
    return /^[A-Za-z0-9_-]{43}$/.test(token);
  }

  sameHash(a: string, b: string): boolean {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
