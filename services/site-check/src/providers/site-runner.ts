import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { launch, type LaunchedChrome } from 'chrome-launcher';
import {
  SITE_CHECK_IMPACTS,
  SITE_CHECK_WIDTHS,
  type SiteCheckImpact,
  type SiteCheckSize,
} from '@htm/contracts';
import { refusedReasonText, type RefusedReason } from '@htm/service-kit/egress';
import type {
  CheckFailure,
  CheckOutcome,
  LighthouseFigures,
  MeasuredCheck,
  MeasuredSize,
} from '../domain/check-result.js';
import type { LighthouseJob } from './lighthouse-worker.js';
import {
  decideHost,
  REFUSED_HEADER,
  startEgressProxy,
  type Connect,
  type EgressProxy,
  type Refusal,
  type Resolve,
} from './egress-proxy.js';

/**
 * One health check of one page in Debian's Chromium: the page at a phone (390 px, touch) and a
 * desktop (1280 px) size through Playwright (axe-core, console errors, uncaught exceptions,
 * failed requests, broken images, layout shifts and long tasks, page weight, a screenshot), the
 * same-origin links (HEAD, then GET), then Lighthouse's lab performance at each size in the same
 * browser. Every request of the browser leaves through the egress proxy (egress-proxy.ts).
 *
 * Limits: each page load SITE_CHECK_PAGE_TIMEOUT_MS (60 s), each Lighthouse run the same; the
 * whole check a hard wall clock (the browser is killed when it passes); the browser's memory
 * (every process of it) is watched and the check stopped above the limit; one page: the main
 * frame may not navigate away once loaded, and nothing but GET navigations (no form submission:
 * the check never types or clicks, and a POST navigation the page starts itself is aborted).
 */
export interface RunnerOptions {
  chromePath: string;
  allowPrivate: boolean;
  pageTimeoutMs: number;
  /** The whole check, after which the browser is killed (timed_out). */
  checkTimeoutMs: number;
  /** Memory of all the browser's processes together (MB). */
  memoryLimitMb: number;
  lighthouse: boolean;
  maxLinks: number;
  /** The product token ending the user agent (the site's logs see who visited). */
  userAgent: string;
  sizes?: readonly SiteCheckSize[];
  /** Tests: the egress proxy's resolver and connector (a fake DNS, connections to loopback). */
  resolve?: Resolve;
  connect?: Connect;
  logger?: Logger;
  /** Told of the browser's peak memory (bytes) when the check ends (the benchmark). */
  onPeakMemory?: (bytes: number) => void;
}

const LINK_TIMEOUT_MS = 8000;
const LINK_CONCURRENCY = 4;
const SETTLE_MS = 3000;
const MAX_LIST = 50;

class Stop extends Error {
  constructor(readonly failure: CheckFailure) {
    super(failure.detail);
  }
}

const describeRefusal = (r: Pick<Refusal, 'host' | 'address' | 'reason'>) =>
  r.reason === 'unresolvable'
    ? `${r.host} does not resolve`
    : `${r.host}${r.address && r.address !== r.host ? ` resolves to ${r.address},` : ' is'} ${refusedReasonText(r.reason as RefusedReason)}`;

/** Chromium's flags: everything through the proxy (loopback too), no resolver of its own, no UDP around it. */
export function chromiumFlags(proxyUrl: string, noSandbox: boolean, heapMb: number): string[] {
  return [
    '--headless=new',
    ...(noSandbox ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-default-apps',
    '--no-first-run',
    '--mute-audio',
    // The screenshots show the page, not the browser's scroll bar.
    '--hide-scrollbars',
    '--no-pings',
    // Chromium's own calls home (network time, sign-in, updates) would go through the proxy too.
    '--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater',
    `--proxy-server=${proxyUrl}`,
    // Chromium sends loopback straight out unless told not to: through the proxy like the rest.
    '--proxy-bypass-list=<-loopback>',
    // Its own resolver answers nothing: a connection that skipped the proxy would find no address.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--js-flags=--max-old-space-size=${heapMb}`,
  ];
}

/**
 * Memory of a process and all its descendants (Linux /proc; 0 elsewhere): the proportional set
 * size, so pages the browser's processes share are counted once, not once per process.
 */
export function treeMemoryBytes(rootPid: number): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return 0;
  }
  const parent = new Map<number, number>();
  for (const e of entries) {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(e), ppid);
    } catch {
      /* gone */
    }
  }
  const inTree = (pid: number) => {
    for (let p = pid, i = 0; p > 1 && i < 64; p = parent.get(p) ?? 0, i++)
      if (p === rootPid) return true;
    return false;
  };
  let total = 0;
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      /* gone */
    }
  }
  return total;
}

const OBSERVER = `(() => {
  const s = { cls: 0, long: 0 };
  Object.defineProperty(window, '__htmSiteCheck', { value: s, enumerable: false });
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) s.cls += e.value; })
      .observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((l) => { for (const e of l.getEntries()) s.long += Math.max(0, e.duration - 50); })
      .observe({ type: 'longtask', buffered: true });
  } catch {}
})();`;

/**
 * Scripts run in the checked page, as source text: a function passed to page.evaluate would be
 * compiled by tsx/esbuild with helpers (`__name`) the page does not have.
 */
const SEEN_SCRIPT = `(() => {
  const s = window.__htmSiteCheck;
  const broken = [...document.images]
    .filter((i) => i.complete && i.naturalWidth === 0 && (i.currentSrc || i.getAttribute('src')))
    .map((i) => i.currentSrc || i.src);
  return { cls: s ? s.cls : 0, long: s ? s.long : 0, broken };
})()`;

const LINKS_SCRIPT = `async ({ max, timeoutMs, concurrency }) => {
  const here = new URL(location.href);
  here.hash = '';
  const urls = [...new Set([...document.querySelectorAll('a[href]')]
    .map((a) => { try { const u = new URL(a.href, location.href); u.hash = ''; return u; } catch { return null; } })
    .filter((u) => u && (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === here.origin && u.href !== here.href)
    .map((u) => u.href))].slice(0, max);
  const probe = async (u, method) => {
    try {
      const r = await fetch(u, { method, redirect: 'manual', credentials: 'omit', cache: 'no-store', signal: AbortSignal.timeout(timeoutMs) });
      return r.type === 'opaqueredirect' ? 200 : r.status;
    } catch { return null; }
  };
  const broken = [];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const u = urls[next++];
      let status = await probe(u, 'HEAD');
      if (status === null || status >= 400) status = await probe(u, 'GET');
      if (status === null || status >= 400) broken.push({ url: u, status });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { checked: urls.length, broken };
}`;

/** A Chrome user agent of the running browser's version, ending with the product's token. */
export function userAgentFor(size: SiteCheckSize, browserVersion: string, product: string): string {
  const major = browserVersion.split('.')[0] || '130';
  return size === 'phone'
    ? `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36 ${product}`
    : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36 ${product}`;
}

const impactOf = (i: string | null | undefined): SiteCheckImpact =>
  (SITE_CHECK_IMPACTS as readonly string[]).includes(i ?? '') ? (i as SiteCheckImpact) : 'minor';

export async function runSiteCheck(url: string, opts: RunnerOptions): Promise<CheckOutcome> {
  const log = opts.logger?.child({ component: 'site-runner' });
  let target: URL;
  try {
    target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('scheme');
  } catch {
    return { ok: false, failure: { reason: 'unreachable', detail: `not a web address: ${url}` } };
  }
  // The page's own host first: a refused or unknown address ends the check before a browser starts.
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const first = await decideHost(host, opts);
  if (!first.ok)
    return {
      ok: false,
      failure: {
        reason: first.reason === 'unresolvable' ? 'unreachable' : 'refused_address',
        detail: describeRefusal({ host, ...first }),
      },
    };

  const proxy = await startEgressProxy({
    allowPrivate: opts.allowPrivate,
    resolve: opts.resolve,
    connect: opts.connect,
  });
  let chrome: LaunchedChrome | undefined;
  let browser: Browser | undefined;
  let peak = 0;
  let watchdog: NodeJS.Timeout | undefined;
  let stopWith: ((f: CheckFailure) => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    stopWith = (f) => reject(new Stop(f));
  });
  stopped.catch(() => undefined);
  const started = Date.now();
  try {
    chrome = await launch({
      chromePath: opts.chromePath,
      chromeFlags: chromiumFlags(
        proxy.url,
        process.getuid?.() === 0,
        Math.max(128, Math.floor(opts.memoryLimitMb / 2)),
      ),
      logLevel: 'silent',
      handleSIGINT: false,
      // Wait for Chromium's debugging port for up to 2 minutes (a loaded machine starts it slowly);
      // the whole check's wall clock still applies.
      maxConnectionRetries: 240,
    });
    const c = chrome;
    watchdog = setInterval(() => {
      const rss = treeMemoryBytes(c.pid);
      peak = Math.max(peak, rss);
      if (rss > opts.memoryLimitMb * 1024 * 1024) {
        c.kill();
        stopWith?.({
          reason: 'too_large',
          detail: `the browser used ${Math.round(rss / 1048576)} MB (limit ${opts.memoryLimitMb} MB)`,
        });
      } else if (Date.now() - started > opts.checkTimeoutMs) {
        c.kill();
        stopWith?.({
          reason: 'timed_out',
          detail: `the check took longer than ${Math.round(opts.checkTimeoutMs / 1000)} s`,
        });
      }
    }, 250);
    const work = async (): Promise<MeasuredCheck> => {
      browser = await chromium.connectOverCDP(`http://127.0.0.1:${c.port}`);
      const version = browser.version();
      const ua = (size: SiteCheckSize) => userAgentFor(size, version, opts.userAgent);
      const sizes: MeasuredSize[] = [];
      let finalUrl = url;
      let links: MeasuredCheck['links'] = { checked: 0, broken: [] };
      for (const size of opts.sizes ?? (['phone', 'desktop'] as const)) {
        const r = await measureSize(browser, url, size, ua(size), proxy, opts, sizes.length === 0);
        sizes.push(r.measured);
        finalUrl = r.finalUrl;
        if (r.links) links = r.links;
      }
      if (opts.lighthouse) {
        for (const s of sizes) {
          const lh = await runLighthouse(url, s.size, ua(s.size), c.port, opts).catch(
            (err: Error) => ({
              error: err.message,
            }),
          );
          if ('error' in lh) {
            s.lighthouseError = lh.error;
            log?.warn({ url, size: s.size, err: lh.error }, 'lighthouse could not measure');
          } else s.lighthouse = lh;
        }
      }
      return {
        url,
        finalUrl,
        sizes,
        links,
        blocked: blockedOf(sizes),
        lighthouseRan: opts.lighthouse,
      };
    };
    const check = await Promise.race([work(), stopped]);
    return { ok: true, check };
  } catch (err) {
    if (err instanceof Stop) return { ok: false, failure: err.failure };
    const message = (err as Error).message ?? String(err);
    log?.warn({ url, err: message }, 'site check failed');
    return { ok: false, failure: { reason: 'browser_error', detail: message.slice(0, 300) } };
  } finally {
    if (watchdog) clearInterval(watchdog);
    if (chrome) peak = Math.max(peak, treeMemoryBytes(chrome.pid));
    await (browser as Browser | undefined)?.close().catch(() => undefined);
    try {
      chrome?.kill();
    } catch {
      /* already gone */
    }
    await proxy.close();
    opts.onPeakMemory?.(peak);
  }
}

/** The requests of the page the proxy refused, once each, over both sizes. */
function blockedOf(sizes: MeasuredSize[]): MeasuredCheck['blocked'] {
  const seen = new Map<string, { url: string; reason: string }>();
  for (const s of sizes) for (const b of s.blocked) if (!seen.has(b.url)) seen.set(b.url, b);
  return [...seen.values()].slice(0, MAX_LIST);
}

const hostOf = (u: string) => {
  try {
    return new URL(u).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
};

/** The page at one size: load, watch, axe, images, (first size) links, weight, screenshot. */
async function measureSize(
  browser: Browser,
  url: string,
  size: SiteCheckSize,
  userAgent: string,
  proxy: EgressProxy,
  opts: RunnerOptions,
  withLinks: boolean,
): Promise<{ measured: MeasuredSize; finalUrl: string; links: MeasuredCheck['links'] | null }> {
  const phone = size === 'phone';
  const width = SITE_CHECK_WIDTHS[size];
  const height = phone ? 844 : 800;
  const context: BrowserContext = await browser.newContext({
    viewport: { width, height },
    isMobile: phone,
    hasTouch: phone,
    deviceScaleFactor: phone ? 2 : 1,
    userAgent,
    serviceWorkers: 'block',
    acceptDownloads: false,
    ignoreHTTPSErrors: false,
  });
  try {
    const page = await context.newPage();
    await page.addInitScript(OBSERVER);
    const m: MeasuredSize = {
      size,
      width,
      height,
      screenshot: null,
      axe: [],
      lighthouse: null,
      lighthouseError: null,
      consoleErrors: [],
      exceptions: [],
      failedRequests: [],
      brokenImages: [],
      layoutShift: 0,
      longTasksMs: 0,
      pageBytes: 0,
      requests: 0,
      blocked: [],
    };
    let loaded = false;
    // One page, GET only: the loaded page may not navigate its main frame, and no frame may POST one.
    await page.route('**/*', (route) => {
      const req = route.request();
      const nav = req.isNavigationRequest();
      if (nav && (req.method() !== 'GET' || (loaded && req.frame() === page.mainFrame())))
        return route.abort('blockedbyclient');
      return route.continue();
    });
    page.on('console', (msg) => {
      if (msg.type() !== 'error' || m.consoleErrors.length >= MAX_LIST) return;
      const text = msg.text();
      // The browser's own line for a failed load: counted as a failed request, not a script's error.
      if (/^Failed to load resource/.test(text)) return;
      m.consoleErrors.push({ text: text.slice(0, 500), url: msg.location().url || null });
    });
    page.on('pageerror', (err) => {
      if (m.exceptions.length < MAX_LIST) m.exceptions.push({ message: err.message.slice(0, 500) });
    });
    /** The page's own requests the proxy refused (Chromium's background requests are not the page's). */
    const refusedUrls = new Set<string>();
    /** Off while the links are checked: those requests are the check's, not the page's. */
    let watching = true;
    page.on('response', (res) => {
      if (res.headers()[REFUSED_HEADER]) {
        refusedUrls.add(res.url());
        return;
      }
      if (watching && res.status() >= 400 && m.failedRequests.length < MAX_LIST)
        m.failedRequests.push({
          url: res.url(),
          status: res.status(),
          method: res.request().method(),
          resourceType: res.request().resourceType(),
          error: null,
        });
    });
    page.on('requestfailed', (req) => {
      const error = req.failure()?.errorText ?? 'failed';
      // A tunnel the proxy would not open: refused, not the site's failure.
      if (/ERR_TUNNEL_CONNECTION_FAILED/.test(error)) {
        refusedUrls.add(req.url());
        return;
      }
      // The one-page rule, or a load the page itself cancelled.
      if (/ERR_BLOCKED_BY_CLIENT|ERR_ABORTED/.test(error)) return;
      if (watching && m.failedRequests.length < MAX_LIST)
        m.failedRequests.push({
          url: req.url(),
          status: null,
          method: req.method(),
          resourceType: req.resourceType(),
          error,
        });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.requestWillBeSent', (e: { request: { url: string } }) => {
      if (!e.request.url.startsWith('data:')) m.requests++;
    });
    cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
      m.pageBytes += Math.max(0, e.encodedDataLength);
    });

    const refusedBefore = proxy.refusals.length;
    let response;
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: opts.pageTimeoutMs });
    } catch (err) {
      const message = (err as Error).message;
      const refused = proxy.refusals.slice(refusedBefore);
      if (refused.length && /ERR_TUNNEL_CONNECTION_FAILED|ERR_FAILED|403/.test(message))
        throw new Stop({ reason: 'refused_address', detail: describeRefusal(refused[0]) });
      if (/Timeout/i.test(message))
        throw new Stop({
          reason: 'timed_out',
          detail: `the page did not load within ${Math.round(opts.pageTimeoutMs / 1000)} s`,
        });
      throw new Stop({ reason: 'unreachable', detail: message.split('\n')[0].slice(0, 300) });
    }
    const refusedMain = response?.headers()[REFUSED_HEADER];
    if (refusedMain) {
      const r = proxy.refusals.slice(refusedBefore).find((x) => x.url === response!.url());
      throw new Stop({
        reason: 'refused_address',
        detail: r ? describeRefusal(r) : `the page led to a refused address (${refusedMain})`,
      });
    }
    loaded = true;
    await page.waitForLoadState('networkidle', { timeout: SETTLE_MS }).catch(() => undefined);
    const finalUrl = page.url();

    // Only the violations are read: axe then keeps no element lists of the rules that pass (a
    // few seconds of a loaded machine's CPU on every size).
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
      .options({ resultTypes: ['violations'] })
      .analyze();
    m.axe = axe.violations.map((v) => ({
      id: v.id,
      impact: impactOf(v.impact),
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({
        selector: n.target.map(String).join(' '),
        html: n.html.slice(0, 300),
      })),
    }));

    const seen = (await page.evaluate(SEEN_SCRIPT)) as {
      cls: number;
      long: number;
      broken: string[];
    };
    m.layoutShift = seen.cls;
    m.longTasksMs = seen.long;
    const statusOf = new Map(m.failedRequests.map((f) => [f.url, f.status]));
    m.brokenImages = [...new Set(seen.broken)]
      .filter((u) => !refusedUrls.has(u))
      .slice(0, MAX_LIST)
      .map((u) => ({ url: u, status: statusOf.get(u) ?? null }));

    watching = false;
    const links = withLinks ? await checkLinks(page, opts.maxLinks) : null;
    m.screenshot = await page
      .screenshot({ type: 'jpeg', quality: 60, scale: 'css', timeout: 10_000 })
      .catch(() => null);
    m.blocked = [...refusedUrls].slice(0, MAX_LIST).map((u) => {
      const host = hostOf(u);
      const r = proxy.refusals.find((x) => x.host === host || x.url === u);
      return { url: u, reason: r ? describeRefusal(r) : 'refused' };
    });
    return { measured: m, finalUrl, links };
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** Same-origin links of the page (at most `max`): HEAD, then GET when HEAD does not say OK; a redirect is fine. */
async function checkLinks(page: Page, max: number): Promise<MeasuredCheck['links']> {
  if (max <= 0) return { checked: 0, broken: [] };
  const args = JSON.stringify({ max, timeoutMs: LINK_TIMEOUT_MS, concurrency: LINK_CONCURRENCY });
  return (await page.evaluate(`(${LINKS_SCRIPT})(${args})`)) as MeasuredCheck['links'];
}

/**
 * Lighthouse's lab performance at one size, in the browser already running (its own tab), run in
 * a child process (lighthouse-worker.ts): its memory is given back when it exits, a run past its
 * time is killed, and it loads as plain Node modules wherever the service runs (tsx, a bundle, jest).
 */
async function runLighthouse(
  url: string,
  size: SiteCheckSize,
  userAgent: string,
  port: number,
  opts: RunnerOptions,
): Promise<LighthouseFigures> {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith('.ts');
  const worker = path.join(
    path.dirname(self),
    fromSource ? 'lighthouse-worker.ts' : 'lighthouse-worker.js',
  );
  const args = [...(fromSource ? ['--import', 'tsx'] : []), worker];
  const input: LighthouseJob = { url, size, userAgent, port, pageTimeoutMs: opts.pageTimeoutMs };
  return new Promise<LighthouseFigures>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Lighthouse took longer than ${opts.pageTimeoutMs + 15_000} ms`));
    }, opts.pageTimeoutMs + 15_000);
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        const r = JSON.parse(out.trim().split('\n').pop() ?? '') as
          { ok: true; figures: LighthouseFigures } | { ok: false; error: string };
        if (r.ok) resolve(r.figures);
        else reject(new Error(r.error));
      } catch {
        reject(new Error(`Lighthouse exited ${code}: ${err.trim().split('\n').pop() ?? ''}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}
