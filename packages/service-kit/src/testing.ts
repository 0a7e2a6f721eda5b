/** Test helpers: real Postgres databases, Redis prefixes, a JWKS-serving token issuer, a TCP proxy to cut. */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { Caller } from './auth.js';
import { AppError } from './errors.js';

export const TEST_DATABASE_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Polls `fn` until it returns something truthy (eventual consistency across services), or fails naming `what`. */
export async function waitFor<T>(
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what = 'condition',
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The AppError `fn` throws (a domain rule's refusal); fails the test when it throws nothing or something else. */
export function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty Postgres database for one test file (dropped by `drop`). */
export async function createTestDatabase(label = 't'): Promise<TestDatabase> {
  const { default: pg } = await import('pg');
  const name = `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A unique Redis key prefix so test files can share one Redis. */
export function testRedisPrefix(label = 't'): string {
  return `test:${label}:${randomBytes(4).toString('hex')}:`;
}

export interface TestIssuer {
  /** JWKS URL to give services as IDENTITY_URL + /internal/jwks. */
  jwksUrl: string;
  /** Base URL, usable as IDENTITY_URL. */
  url: string;
  issuer: string;
  audience: string;
  mint(
    claims?: Partial<Caller> & { exp?: string | number; aud?: string; iss?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

/** Starts a tiny HTTP server serving an ES256 JWKS at /internal/jwks and mints access tokens for any role. */
export async function createTestIssuer(
  opts: { issuer?: string; audience?: string } = {},
): Promise<TestIssuer> {
  const issuer = opts.issuer ?? 'htm-identity';
  const audience = opts.audience ?? 'htm-api';
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/internal/jwks') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    jwksUrl: `${url}/internal/jwks`,
    url,
    issuer,
    audience,
    async mint(c = {}) {
      const id = c.id ?? randomUUID();
      return new SignJWT({
        typ: 'access',
        email: c.email ?? `${id.slice(0, 8)}@gmail.com`,
        name: c.name ?? 'Test User',
        type: c.type === undefined ? 'poster' : c.type,
        approved: c.approved ?? c.type === 'tester',
        country: c.country ?? (c.type === 'tester' ? 'US' : null),
        location: c.location ?? 'USA',
        ...(c.sid ? { sid: c.sid } : {}),
        ...(c.claimsAt !== undefined ? { claims_at: c.claimsAt } : {}),
      })
        .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
        .setSubject(id)
        .setIssuer(c.iss ?? issuer)
        .setAudience(c.aud ?? audience)
        .setIssuedAt()
        .setExpirationTime(c.exp ?? '15m')
        .sign(privateKey);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * A TCP proxy in front of a server (the shared Postgres in the resilience tests): `cut()` drops every
 * connection and refuses new ones until `down` is set back to false (an outage of any length).
 */
export class TcpProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  down = false;
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((socket) => {
      if (this.down) return socket.destroy();
      const upstream = net.connect(target.port, target.host);
      this.sockets.add(socket).add(upstream);
      const close = () => {
        socket.destroy();
        upstream.destroy();
        this.sockets.delete(socket);
        this.sockets.delete(upstream);
      };
      socket.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      socket.pipe(upstream).pipe(socket);
    });
  }
  /** The same URL with this proxy's host and port (e.g. a database URL through the proxy). */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
  async close(): Promise<void> {
    this.cut();
    await new Promise((r) => this.server.close(r));
  }
}
