import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short-lived signed file links: `/api/files/:id?sig=<expiresMs>.<hmac>` so an <img src> can
 * load a file without a bearer header. The HMAC covers the file id and the expiry.
 */
export class FileLinkSigner {
  constructor(
    private readonly secret: string,
    private readonly ttlMs: number,
  ) {}

  static fromConfig(cfg: {
    FILE_URL_SECRET?: string;
    SERVICE_TOKEN_SECRET: string;
    FILE_URL_TTL_MS: number;
  }): FileLinkSigner {
    const secret =
      cfg.FILE_URL_SECRET ??
      createHmac('sha256', cfg.SERVICE_TOKEN_SECRET).update('jobs-file-links').digest('base64url');
    return new FileLinkSigner(secret, cfg.FILE_URL_TTL_MS);
  }

  sign(fileId: string, expiresAtMs = Date.now() + this.ttlMs): string {
    const mac = createHmac('sha256', this.secret)
      .update(`${fileId}.${expiresAtMs}`)
      .digest('base64url');
    return `${expiresAtMs}.${mac}`;
  }

  url(fileId: string, expiresAtMs?: number): string {
    return `/api/files/${fileId}?sig=${this.sign(fileId, expiresAtMs)}`;
  }

  /** 'ok', 'expired' or 'invalid'. */
  verify(fileId: string, sig: string, now = Date.now()): 'ok' | 'expired' | 'invalid' {
    const m = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(sig);
    if (!m) return 'invalid';
    const expected = Buffer.from(
      createHmac('sha256', this.secret).update(`${fileId}.${m[1]}`).digest('base64url'),
    );
    const given = Buffer.from(m[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    return Number(m[1]) < now ? 'expired' : 'ok';
  }
}
