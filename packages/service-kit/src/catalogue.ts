import { Router, type Express, type RequestHandler } from 'express';
import type { z } from 'zod';
import {
  expressPath,
  OPERATIONS,
  type CataloguePath,
  type HttpMethod,
  type Operation,
  type ServiceName,
} from '@htm/contracts/routes';
import { INTERNAL_OPERATIONS, PRIVACY_INTERNAL_OPERATIONS } from '@htm/contracts/internal';

/**
 * Express routes mounted from the operation catalogue (packages/contracts routes.ts and
 * internal.ts): a service cannot answer a route the catalogue does not have, and (checked when
 * the service starts, assertRoutesCatalogued) every operation of the catalogue it owns has its
 * route. A role check (`requireRole`) in a route must admit exactly the operation's roles.
 *
 *   const r = catalogueRoutes('jobs');
 *   r.post('/api/jobs/{id}/claim', authenticate, requireRole('tester'), claim);
 *   return r.router;
 */

type Handlers = Array<RequestHandler | RequestHandler[]>;
type InternalPath = `/internal/${string}`;
/** A service, or 'every' for the internal routes every service answers (the /internal/privacy routes). */
type Owner = ServiceName | 'every';
type PathOf<S extends Owner, M extends HttpMethod> =
  (S extends ServiceName ? CataloguePath<S, M> : never) | InternalPath;
type Mount<S extends Owner, M extends HttpMethod> = (
  path: PathOf<S, M>,
  ...handlers: Handlers
) => void;

export interface CatalogueRoutes<S extends Owner> {
  /** The express router to mount (`app.use(r.router)`). */
  readonly router: Router;
  get: Mount<S, 'get'>;
  post: Mount<S, 'post'>;
  put: Mount<S, 'put'>;
  patch: Mount<S, 'patch'>;
  delete: Mount<S, 'delete'>;
  /** HEAD answered by its own handler (the GET operation's; tus offsets of recordings). */
  head: Mount<S, 'get'>;
  /** Middleware for a path prefix (no route of its own). */
  use: Router['use'];
  /**
   * An operation this configuration does not answer (the Google callback without Google, the
   * DEV sign-in in production): the service's 404 answers it, and the start-up check knows why.
   */
  without<M extends HttpMethod>(method: M, path: PathOf<S, M>): void;
}

/**
 * The operations a catalogue router leaves out on purpose (`without`), kept on the router under
 * an enumerable string key: OpenTelemetry's express instrumentation replaces each layer's handle
 * with a wrapper that proxies only such keys (a WeakMap keyed by the router, or a symbol, is lost
 * behind it, and a traced service would refuse to start).
 */
const LEFT_OUT = '__catalogueLeftOut';
type WithLeftOut = { [LEFT_OUT]?: Set<string> };

/** A route of the catalogue: public, internal to one service, or internal to every service. */
interface CatalogueEntry {
  method: HttpMethod | 'head';
  path: string;
  /** The owning service; undefined: every service (the /internal/privacy routes). */
  service?: ServiceName;
  roles?: readonly string[];
  response?: z.ZodType;
}

/** requireRole marks its middleware with the roles it admits, so a mount can compare them with the catalogue. */
export const ROLES_OF = Symbol('roles');

const entries: CatalogueEntry[] = [
  ...OPERATIONS.map((op: Operation) => ({
    method: op.method,
    path: op.path,
    service: op.service,
    roles: op.roles,
    response: op.response,
  })),
  ...INTERNAL_OPERATIONS.map((op) => ({
    method: op.method,
    path: op.path,
    service: op.service,
    response: op.response,
  })),
  ...PRIVACY_INTERNAL_OPERATIONS.map((op) => ({
    method: op.method,
    path: op.path,
    response: op.produces ? undefined : op.response,
  })),
];

/** The catalogue's entry for a method and path template served by `service`, or undefined. */
export function catalogueEntry(
  service: string,
  method: string,
  path: string,
): CatalogueEntry | undefined {
  const m = method === 'head' ? 'get' : method;
  return entries.find(
    (e) => e.method === m && e.path === path && (e.service === undefined || e.service === service),
  );
}

export function catalogueRoutes<S extends Owner>(service: S): CatalogueRoutes<S> {
  const router = Router();
  const leftOut = new Set<string>();
  (router as unknown as WithLeftOut)[LEFT_OUT] = leftOut;
  const mount =
    (method: HttpMethod | 'head') =>
    (path: string, ...handlers: Handlers): void => {
      const entry = catalogueEntry(service, method, path);
      if (!entry)
        throw new Error(
          `${service}: ${method.toUpperCase()} ${path} is not in the operation catalogue (packages/contracts routes.ts or internal.ts)`,
        );
      // HEAD has its own use where it has its own handler (the tus offset, for the uploading tester only).
      for (const h of method === 'head' ? [] : handlers.flat()) {
        const roles = (h as { [ROLES_OF]?: readonly string[] })[ROLES_OF];
        if (roles && [...roles].sort().join(',') !== [...(entry.roles ?? [])].sort().join(',')) {
          throw new Error(
            `${service}: ${method.toUpperCase()} ${path} admits ${roles.join(', ')} but the catalogue says ${(entry.roles ?? []).join(', ') || 'no roles'}`,
          );
        }
      }
      if (checking && entry.response)
        router[method](
          expressPath(path),
          checkAnswer(`${method.toUpperCase()} ${path}`, entry.response),
          ...handlers,
        );
      else router[method](expressPath(path), ...handlers);
    };
  return {
    router,
    get: mount('get'),
    post: mount('post'),
    put: mount('put'),
    patch: mount('patch'),
    delete: mount('delete'),
    head: mount('head'),
    use: router.use.bind(router),
    without: (method, path) => {
      if (!catalogueEntry(service, method, path))
        throw new Error(
          `${service}: ${method.toUpperCase()} ${path} is not in the operation catalogue`,
        );
      leftOut.add(`${method} ${path}`);
    },
  };
}

let checking = process.env.CHECK_RESPONSES === '1';
/** Answers (2xx JSON) that did not match their operation's response schema while checking was on. */
export const responseMismatches: string[] = [];
/** How many answers were checked (per operation, `METHOD /path`). */
export const responsesChecked = new Map<string, number>();

/**
 * Tests (and CHECK_RESPONSES=1): routes mounted from now on check each 2xx JSON answer against
 * its operation's response schema, fields it does not declare included, and note every mismatch
 * in responseMismatches (the answer itself is sent unchanged). Off in production: no cost there.
 */
export function checkResponses(on = true): void {
  checking = on;
}

function checkAnswer(name: string, schema: z.ZodType): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode >= 200 && res.statusCode < 300) {
        responsesChecked.set(name, (responsesChecked.get(name) ?? 0) + 1);
        const parsed = schema.safeParse(body);
        if (!parsed.success)
          responseMismatches.push(
            `${name} ${res.statusCode}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
          );
        else {
          const extra = undeclared(body, parsed.data);
          if (extra.length)
            responseMismatches.push(`${name} ${res.statusCode}: undeclared ${extra.join(', ')}`);
        }
      }
      return json(body);
    };
    next();
  };
}

/** Fields of an answer its schema dropped (zod strips what it does not declare). */
function undeclared(sent: unknown, kept: unknown, at = ''): string[] {
  if (Array.isArray(sent) && Array.isArray(kept))
    return sent.flatMap((v, i) => undeclared(v, kept[i], `${at}[${i}]`)).slice(0, 5);
  if (!sent || typeof sent !== 'object' || !kept || typeof kept !== 'object') return [];
  return Object.entries(sent as Record<string, unknown>).flatMap(([k, v]) =>
    k in (kept as Record<string, unknown>)
      ? undeclared(v, (kept as Record<string, unknown>)[k], at ? `${at}.${k}` : k)
      : [at ? `${at}.${k}` : k],
  );
}

/** Routes every service answers outside the catalogue: health, readiness and metrics. */
const INFRASTRUCTURE = new Set(['get /healthz', 'get /readyz', 'get /metrics']);

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route of an express app (method and catalogue-style path), nested routers included. */
export function routesOf(
  app: Express | Router,
): Array<{ method: string; path: string; leftOut?: true }> {
  const out: Array<{ method: string; path: string; leftOut?: true }> = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      for (const key of (layer.handle as WithLeftOut | undefined)?.[LEFT_OUT] ?? []) {
        const [method, path] = key.split(' ');
        out.push({ method, path, leftOut: true });
      }
      if (layer.route) {
        for (const p of ([] as string[]).concat(layer.route.path)) {
          for (const [m, on] of Object.entries(layer.route.methods)) {
            if (on && m !== '_all')
              out.push({ method: m, path: p.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
          }
        }
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  const root = (app as Express).router ?? app;
  walk((root as unknown as { stack: Layer[] }).stack);
  return out;
}

/**
 * The routes of a service's app that the catalogue lacks, and the catalogue's operations of the
 * service that have no route. Both empty for a service as it must be.
 */
export function catalogueGaps(
  app: Express | Router,
  service: string,
): { unknown: string[]; missing: string[] } {
  const routes = routesOf(app);
  const unknown = routes
    .filter(
      (r) =>
        !r.leftOut &&
        !INFRASTRUCTURE.has(`${r.method} ${r.path}`) &&
        !catalogueEntry(service, r.method, r.path),
    )
    .map((r) => `${r.method.toUpperCase()} ${r.path}`);
  const have = new Set(routes.map((r) => `${r.method} ${r.path}`));
  const missing = entries
    .filter((e) => e.service === service && !have.has(`${e.method} ${e.path}`))
    .map((e) => `${e.method.toUpperCase()} ${e.path}`);
  return { unknown, missing };
}

/**
 * Throws when a service's app has a route the catalogue lacks, or lacks one the catalogue gives
 * it and its routes did not leave out (`without`). Each service's mount calls it last, so a
 * service whose routes and catalogue disagree does not start.
 */
export function assertRoutesCatalogued(app: Express, service: string): void {
  const { unknown, missing: notMounted } = catalogueGaps(app, service);
  if (unknown.length || notMounted.length) {
    throw new Error(
      `${service}: the express routes and the operation catalogue disagree.` +
        (unknown.length ? ` Not in the catalogue: ${unknown.join(', ')}.` : '') +
        (notMounted.length ? ` Catalogued without a route: ${notMounted.join(', ')}.` : ''),
    );
  }
}
