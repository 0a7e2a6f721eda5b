/**
 * Zod probes `new Function('')` to decide whether to compile its object parsers. Under the
 * gateway's CSP (script-src 'self', no 'unsafe-eval') the probe is refused and, although zod
 * catches the error, the browser reports a `securitypolicyviolation`. `jitless` skips the probe.
 * Zod reads its global config from `globalThis.__zod_globalConfig` (what `z.config()` writes), so
 * setting it here keeps zod out of the landing page's initial bundle. Must run before any chunk
 * that imports zod: main.tsx imports this module first.
 */
const g = globalThis as { __zod_globalConfig?: Record<string, unknown> };
(g.__zod_globalConfig ??= {}).jitless = true;

export {};
