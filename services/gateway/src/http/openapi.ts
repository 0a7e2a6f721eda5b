import type { Express } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorBodySchema, LIVE_OPERATIONS, OPERATIONS, type Operation } from '@htm/contracts';

const ERROR_STATUSES: Record<number, string> = {
  400: 'Invalid input (errors lists messages per field)',
  401: 'No, expired or invalid access token',
  403: 'Role or ownership does not allow this',
  404: 'Not found',
  409: 'State conflict or duplicate',
  413: 'Too large',
  415: 'Unsupported file type',
  429: 'Rate limited (see Retry-After)',
  503: 'A service is unavailable',
};

function errorsFor(op: Operation): number[] {
  const s = [400, 404, 429, 503];
  if (op.access === 'user') s.push(401, 403);
  if (op.method !== 'get') s.push(409);
  if (op.upload) s.push(413, 415);
  return s.sort();
}

/** OpenAPI 3.1 generated from packages/contracts: every route, its body, query and answers. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  const error = errorBodySchema;
  for (const op of OPERATIONS) {
    const params = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const responses: Record<
      string,
      {
        description: string;
        content?: Record<string, { schema: unknown }>;
        headers?: Record<string, unknown>;
      }
    > = {};
    const status = op.status ?? 200;
    for (const [code, description] of [
      [status, op.summary],
      ...Object.entries(op.also ?? {}),
    ] as Array<[number | string, string]>) {
      responses[String(code)] = { description, ...successAnswer(op, Number(code)) };
    }
    for (const s of errorsFor(op))
      responses[String(s)] = {
        description: ERROR_STATUSES[s],
        content: { 'application/json': { schema: error } },
      };
    registry.registerPath({
      method: op.method,
      path: op.path,
      summary: op.summary,
      tags: [op.service],
      ...(op.access === 'user' ? { security: [{ bearer: [] }] } : {}),
      ...(op.roles
        ? {
            description: `Allowed: ${op.roles.join(', ')}${op.access === 'public' ? ' (public)' : ''}.`,
          }
        : {}),
      request: {
        ...(params.length ? { params: zodParams(params) } : {}),
        ...(op.query ? { query: op.query as never } : {}),
        ...(op.body ? { body: { content: { 'application/json': { schema: op.body } } } } : {}),
        ...(op.multipart
          ? {
              body: {
                content: { 'multipart/form-data': { schema: multipartSchema(op.multipart) } },
              },
            }
          : {}),
      },
      responses: responses as never,
    });
  }
  // The gateway's own live channel (not proxied).
  for (const op of LIVE_OPERATIONS) {
    const isStream = op.path === '/api/live';
    const responses: Record<string, unknown> = {
      200: isStream
        ? {
            description: op.summary,
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          }
        : { description: op.summary, content: { 'application/json': { schema: op.response } } },
    };
    for (const s of [401, 429, 503])
      responses[String(s)] = {
        description: ERROR_STATUSES[s],
        content: { 'application/json': { schema: error } },
      };
    registry.registerPath({
      method: op.method,
      path: op.path,
      summary: op.summary,
      tags: ['live'],
      ...(isStream ? {} : { security: [{ bearer: [] }] }),
      request: 'query' in op ? { query: op.query as never } : {},
      responses: responses as never,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'HumanTest marketplace API',
      version: '1.0.0',
      description:
        'Every route is served under /api by the gateway. Errors: {detail, code, errors?}. Money in dollars at this edge.',
    },
    servers: [{ url: '/' }],
  }) as unknown as Record<string, unknown>;
}

/** The body (JSON schema, or the media types of a file or page) and headers of a success answer. */
function successAnswer(
  op: Operation,
  status: number,
): { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> } {
  if (status === 302 || status === 303)
    return {
      headers: {
        Location: { description: 'Where the browser goes next', schema: { type: 'string' } },
      },
    };
  if (status === 204 || op.noBody)
    return op.upload && op.method === 'post'
      ? { headers: { Location: { description: 'The new upload', schema: { type: 'string' } } } }
      : {};
  const content: Record<string, { schema: unknown }> = {};
  if (op.response) content['application/json'] = { schema: op.response };
  for (const type of op.produces ?? []) content[type] = { schema: binary(type) };
  return { content };
}
/** A file, a PDF or a video: bytes; a page or CSV: text. */
function binary(type: string): Record<string, string> {
  return type.startsWith('text/') ? { type: 'string' } : { type: 'string', contentMediaType: type };
}

function zodParams(names: string[]) {
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])));
}
function multipartSchema(fields: readonly string[]) {
  return z.object(
    Object.fromEntries(
      fields.map((f) => [
        f,
        f === 'screenshot' || f === 'files'
          ? z.string().describe('binary file')
          : z.string().optional(),
      ]),
    ),
  );
}

/**
 * /api/docs: Redoc (redoc's standalone bundle, served from this server, no CDN) rendering
 * /api/openapi.json. Chosen over Swagger UI for accessibility (axe: no critical, serious or
 * moderate violation once init.js re-levels Redoc's headings; test web/e2e/api-docs.test.ts). No inline script: the page loads the bundle and
 * init.js; Redoc injects its styles (styled-components) and runs search in a blob: worker.
 */
const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title></head>
<body><main id="redoc"></main>
<script src="/api/docs/assets/redoc.standalone.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;

/** The redoc files /api/docs loads; nothing else of the package is served. */
export const DOCS_ASSETS = ['redoc.standalone.js'] as const;
/**
 * Redoc's headings skip levels: an operation's h2 is followed by h5s ("Authorizations:",
 * "path Parameters", "Request Body schema", and "Response Schema" under an expanded response),
 * which axe reports (heading-order) and screen readers announce as level 5. Redoc has no option
 * for its heading levels, so after every render (Redoc renders again when a response is
 * expanded or the search is used) each heading that skips a level gets an aria-level one below
 * the heading it belongs under (the last one before it with a smaller tag level), so an
 * operation's h2 > "Authorizations:", "path Parameters", ... (h5) read as level 3, and "Response
 * Schema" (h5) under "Responses" (h3) as level 4: what axe and assistive technology read. Only the aria-level attribute
 * is touched (React never sets it, so React's DOM stays its own); the observer watches child
 * lists, not attributes, so its own changes do not wake it.
 */
const DOCS_INIT = `Redoc.init('/api/openapi.json', { theme: { colors: { primary: { main: '#1e40af' } } }, pathInMiddlePanel: true }, document.getElementById('redoc'));
(function () {
  var root = document.getElementById('redoc');
  var queued = false;
  function relevel() {
    queued = false;
    var open = []; // the enclosing headings: { own: tag level, level: level given }
    root.querySelectorAll('h1, h2, h3, h4, h5, h6').forEach(function (h) {
      var own = Number(h.tagName.charAt(1));
      while (open.length && open[open.length - 1].own >= own) open.pop();
      var parent = open[open.length - 1];
      var level = parent ? Math.min(own, parent.level + 1) : own;
      if (level !== own) h.setAttribute('aria-level', String(level));
      else if (h.hasAttribute('aria-level')) h.removeAttribute('aria-level');
      open.push({ own: own, level: level });
    });
  }
  new MutationObserver(function () {
    if (!queued) {
      queued = true;
      requestAnimationFrame(relevel);
    }
  }).observe(root, { childList: true, subtree: true });
})();
`;

/** /api/openapi.json and the API reference at /api/docs (assets served locally, no inline script). */
export function mountApiDocs(app: Express): void {
  // Built on the first request, not at start: generating it from every schema of the catalogue
  // is the largest part of a gateway's start-up CPU (every replica start, every test stack).
  let doc: Record<string, unknown> | undefined;
  const bundles = path.join(
    path.dirname(createRequire(import.meta.url).resolve('redoc/package.json')),
    'bundles',
  );
  app.get('/api/openapi.json', (_req, res) => {
    res.json((doc ??= buildOpenApiDocument()));
  });
  app.get('/api/docs', (_req, res) => {
    // Redoc injects <style> elements and runs its search index in a blob: worker: this page only.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; object-src 'none'; base-uri 'self'",
    );
    res.type('html').send(DOCS_HTML);
  });
  app.get('/api/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT);
  });
  for (const file of DOCS_ASSETS) {
    app.get(`/api/docs/assets/${file}`, (_req, res) => {
      res.sendFile(path.join(bundles, file), { maxAge: '1d' });
    });
  }
}
