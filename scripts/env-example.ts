/**
 * Generates .env.example from the services' zod config schemas (services/<name>/src/config.ts,
 * `<name>ConfigSchema`) and the shared baseConfigSchema and eventBusConfigSchema: every key, which services read it, its
 * default, and the doc comment written above it in the config file.
 *
 *   npm run env:example            # rewrites .env.example
 *   npm run env:example -- --check # exits 1 when .env.example is stale
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVICES = [
  'gateway',
  'identity',
  'jobs',
  'payments',
  'admin',
  'notifications',
  'analytics',
  'site-check',
] as const;

interface KeyInfo {
  key: string;
  services: Set<string>;
  /** Default per service that reads the key. */
  defaults: Map<string, string>;
  required: boolean;
  /** Union branches the key appears in (undefined: a plain object schema). */
  whens: Set<string | undefined>;
  /** Literal values (a discriminator such as PAYMENTS_PROVIDER). */
  literals: Set<string>;
  doc?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDef = { type: string; [k: string]: any };
const defOf = (s: unknown): AnyDef => (s as { _zod: { def: AnyDef } })._zod.def;

/** Object shapes of a schema (objects, unions of objects, pipes/preprocess around them). */
function shapesOf(
  schema: unknown,
  when?: string,
): Array<{ shape: Record<string, unknown>; when?: string }> {
  const d = defOf(schema);
  if (d.type === 'object') return [{ shape: d.shape as Record<string, unknown>, when }];
  if (d.type === 'pipe')
    return d.in && defOf(d.in).type !== 'transform' ? shapesOf(d.in, when) : shapesOf(d.out, when);
  if (d.type === 'intersection') return [...shapesOf(d.left, when), ...shapesOf(d.right, when)];
  if (d.type === 'union') {
    const disc = d.discriminator as string | undefined;
    return (d.options as unknown[]).flatMap((o) => {
      let branch: string | undefined;
      if (disc) {
        const lit = defOf(defOf(o).shape?.[disc] ?? {}).values as unknown[] | undefined;
        if (lit?.length) branch = `${disc}=${lit.map(String).join('|')}`;
      }
      return shapesOf(o, branch);
    });
  }
  return [];
}

/** Default value and required-ness of one field. */
function fieldInfo(field: unknown): { defaultValue?: string; required: boolean; literal?: string } {
  let cur = field;
  for (let i = 0; i < 10 && cur; i++) {
    const d = defOf(cur);
    if (d.type === 'default' || d.type === 'prefault') {
      const v = typeof d.defaultValue === 'function' ? d.defaultValue() : d.defaultValue;
      // A discriminator's default branch (EVENT_BUS: z.literal('redis').default('redis')).
      const inner = d.innerType ? defOf(d.innerType) : undefined;
      const literal =
        inner?.type === 'literal' ? String((inner.values as unknown[])[0]) : undefined;
      return { defaultValue: v === undefined ? undefined : String(v), required: false, literal };
    }
    if (d.type === 'optional' || d.type === 'nullable') return { required: false };
    if (d.type === 'literal')
      return { literal: String((d.values as unknown[])[0]), required: true };
    if (d.type === 'pipe') cur = d.in;
    else return { required: true };
  }
  return { required: true };
}

/** `/** doc *\/` comments written right above `KEY:` in a config source file. */
export function docComments(source: string): Map<string, string> {
  const docs = new Map<string, string>();
  const re = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*([A-Z][A-Z0-9_]*)\s*:/g;
  for (const m of source.matchAll(re)) {
    const text = m[1]
      .split('\n')
      .map((l) => l.replace(/^\s*\*?\s?/, '').trim())
      .filter(Boolean)
      .join(' ');
    docs.set(m[2], text);
  }
  return docs;
}

// Explanations for keys whose config files carry no comment.
const FALLBACK_DOCS: Record<string, string> = {
  NODE_ENV:
    'development | test | production. production refuses development secrets and the dev sign-in.',
  LOG_LEVEL: 'pino level: fatal | error | warn | info | debug | trace | silent.',
  DATA_DIR: 'Embedded mode only (no DATABASE_URL): PGlite files live under DATA_DIR/<service>.',
  REDIS_URL: 'Redis for BullMQ, rate limits and (EVENT_BUS=redis) the event streams.',
  EVENT_BUS: 'redis (Redis Streams, default) or kafka (needs KAFKA_BROKERS).',
  KAFKA_BROKERS: 'Comma-separated host:port list; required when EVENT_BUS=kafka.',
  JWT_ISSUER: 'iss claim of access tokens (identity signs, every service verifies).',
  JWT_AUDIENCE: 'aud claim of access tokens.',
  IDENTITY_URL: "Identity's base URL (JWKS at /internal/jwks; the gateway proxies to it).",
  JOBS_URL: "Jobs service's base URL.",
  PAYMENTS_URL: "Payments service's base URL.",
  ADMIN_URL: "Admin service's base URL.",
  NOTIFICATIONS_URL: "Notifications (e-mail) service's base URL.",
  ANALYTICS_URL: "Analytics (admin insights) service's base URL.",
  SITE_CHECK_URL: "Site-check (machine health check) service's base URL.",
  ADMIN_EMAIL: 'The single admin account (default admin@gmail.com outside production).',
  TRUST_PROXY:
    'Services: true behind the gateway (it sets X-Forwarded-For). Gateway: only behind a known proxy (true, a hop count, or its addresses); default false.',
  PORT: 'HTTP port of this service.',
  GOOGLE_CLIENT_ID:
    'Google OAuth client; required in production (unset outside production: dev sign-in).',
  GOOGLE_CLIENT_SECRET: 'Google OAuth client secret; required in production.',
  GOOGLE_CALLBACK_URL: 'Default PUBLIC_URL/api/auth/google/callback.',
  STRIPE_SECRET_KEY: 'Stripe secret key (sk_live_... / sk_test_...).',
  STRIPE_WEBHOOK_SECRET: 'Signing secret of the Stripe webhook endpoint (whsec_...).',
  PAYMENTS_PROVIDER: 'local (simulated checkout; the default when unset) or stripe.',
  FORM_RATE_LIMIT_PER_MINUTE:
    'Public form posts (waitlist, feedback, leads) per minute per client IP.',
  CLAIM_TIMEOUT_MS:
    "How long a tester may hold a claim before it is released (unset: the job's expected_completion_hours).",
  REVISION_WINDOW_MS: 'How long a tester has to resubmit after a revision request (48 h).',
  FILE_URL_TTL_MS: 'Lifetime of a signed file link.',
  S3_BUCKET: 'Store uploads in this S3 (or S3-compatible) bucket instead of local disk.',
  S3_REGION: 'Region of S3_BUCKET.',
  S3_ENDPOINT: 'S3-compatible endpoint (MinIO, R2, ...); unset for AWS.',
  S3_FORCE_PATH_STYLE: 'Path-style bucket URLs (most S3-compatible servers need true).',
  S3_PREFIX: 'Key prefix of uploaded objects.',
  STRIPE_API_PORT: 'Port of STRIPE_API_HOST.',
  STRIPE_API_PROTOCOL: 'http or https for STRIPE_API_HOST.',
  STRIPE_MAX_NETWORK_RETRIES: 'Retries of the Stripe SDK on network errors.',
  LOCAL_WEBHOOK_SECRET:
    'Signs the local provider webhooks (never the development value in production).',
};

export async function collectKeys(): Promise<KeyInfo[]> {
  const keys = new Map<string, KeyInfo>();
  const baseDocs = docComments(
    readFileSync(path.join(root, 'packages/service-kit/src/config.ts'), 'utf8'),
  );
  for (const service of SERVICES) {
    const file = path.join(root, 'services', service, 'src', 'config.ts');
    if (!existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const name = `${service.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}ConfigSchema`;
    const schema = mod[name] as z.ZodType | undefined;
    if (!schema) throw new Error(`${file} does not export ${name}`);
    const docs = docComments(readFileSync(file, 'utf8'));
    for (const { shape, when } of shapesOf(schema)) {
      for (const [key, field] of Object.entries(shape)) {
        const info = fieldInfo(field);
        let k = keys.get(key);
        if (!k) {
          k = {
            key,
            services: new Set(),
            defaults: new Map(),
            required: info.required,
            whens: new Set(),
            literals: new Set(),
          };
          keys.set(key, k);
        }
        k.services.add(service);
        k.doc ??= docs.get(key) ?? baseDocs.get(key) ?? FALLBACK_DOCS[key];
        k.whens.add(when);
        if (info.literal !== undefined) k.literals.add(info.literal);
        if (info.defaultValue !== undefined) {
          const v = info.defaultValue.startsWith(root)
            ? `<repo>${info.defaultValue.slice(root.length)}`
            : info.defaultValue;
          k.defaults.set(service, v);
        }
        if (!info.required) k.required = false;
      }
    }
  }
  return [...keys.values()];
}

/** One default for every reader, or per service when they differ (PORT, HOST). */
function defaultOf(k: KeyInfo): { single?: string; perService?: string } {
  const values = new Set(k.defaults.values());
  if (values.size === 0) return {};
  if (values.size === 1 && k.defaults.size === k.services.size) return { single: [...values][0] };
  return { perService: [...k.defaults].map(([s, v]) => `${s}: ${v}`).join(', ') };
}

export async function renderEnvExample(): Promise<string> {
  const keys = await collectKeys();
  const kit = await import('@htm/service-kit');
  const base = new Set(
    [
      ...Object.keys(kit.baseConfigSchema.shape),
      ...shapesOf(kit.eventBusConfigSchema).flatMap(({ shape }) => Object.keys(shape)),
    ].filter((k) => keys.find((x) => x.key === k)),
  );
  const out: string[] = [
    '# Every environment variable the services read, generated from their zod config schemas',
    '# (services/<name>/src/config.ts + packages/service-kit baseConfigSchema) by',
    '# `npm run env:example`. Do not edit by hand: a deploy test fails when this file is stale.',
    '#',
    '# Lines are commented out: the value shown is the default. Uncomment to override.',
    '# docker-compose.yml reads .env for ${VAR} substitution; k8s takes these keys from the',
    '# ConfigMap (deploy/k8s/base/config.yaml) and the Secret (deploy/k8s/base/secret.template.yaml).',
    '# Production refuses any secret value written in this repository and weak ones (< 32 random',
    '# bytes): generate each with `openssl rand -base64 48`. See docs/operations.md, "Security settings".',
    '# Secrets (never commit real values): SERVICE_TOKEN_PRIVATE_KEY, AUTH_SECRET, JWT_PRIVATE_KEY,',
    '# GOOGLE_CLIENT_SECRET, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, LOCAL_WEBHOOK_SECRET,',
    '# FILE_URL_SECRET, DATABASE_URL (carries a password).',
    '',
  ];
  const section = (title: string, list: KeyInfo[]) => {
    if (!list.length) return;
    out.push(`# ${'='.repeat(92)}`, `# ${title}`, `# ${'='.repeat(92)}`, '');
    for (const k of list.sort((a, b) => a.key.localeCompare(b.key))) {
      if (k.doc) out.push(...wrap(k.doc).map((l) => `# ${l}`));
      const meta = [`read by: ${[...k.services].join(', ')}`];
      const whens = [...k.whens];
      if (whens.length === 1 && whens[0]) meta.push(`only when ${whens[0]}`);
      if (k.literals.size) meta.push(`one of: ${[...k.literals].join(' | ')}`);
      const def = defaultOf(k);
      if (k.required && !k.defaults.size && !k.literals.size) meta.push('required');
      if (def.perService) meta.push(`defaults: ${def.perService}`);
      out.push(`# (${meta.join('; ')})`);
      out.push(`#${k.key}=${def.single ?? ''}`, '');
    }
  };
  section(
    'Shared by every service (packages/service-kit/src/config.ts)',
    keys.filter((k) => base.has(k.key)),
  );
  for (const s of SERVICES) {
    section(
      `${s} (services/${s}/src/config.ts)`,
      keys.filter((k) => !base.has(k.key) && [...k.services][0] === s),
    );
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function wrap(text: string, width = 96): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(/\s+/)) {
    if (cur && cur.length + w.length + 1 > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines;
}

async function main() {
  const text = await renderEnvExample();
  const file = path.join(root, '.env.example');
  if (process.argv.includes('--check')) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (current !== text) {
      console.error('.env.example is stale: run `npm run env:example`');
      process.exit(1);
    }
    console.log('.env.example is up to date');
    return;
  }
  writeFileSync(file, text);
  console.log(`wrote .env.example`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
  process.exit(0);
}
