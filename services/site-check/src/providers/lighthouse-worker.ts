/**
 * One Lighthouse run, as a child process of the site check (site-runner.ts): reads the job as JSON
 * on stdin, connects to the running browser's debugging port, writes one JSON line on stdout
 * (`{ok, figures}` or `{ok: false, error}`) and exits. Lighthouse 12: lab LCP, CLS, TBT, the
 * performance score and the top opportunities, at the check's own sizes.
 */
import lighthouse, { desktopConfig } from 'lighthouse';
import type { LighthouseFigures } from '../domain/check-result.js';

export interface LighthouseJob {
  url: string;
  size: 'phone' | 'desktop';
  userAgent: string;
  port: number;
  pageTimeoutMs: number;
}

export async function measureWithLighthouse(job: LighthouseJob): Promise<LighthouseFigures> {
  const phone = job.size === 'phone';
  const result = await lighthouse(
    job.url,
    {
      port: job.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance'],
      maxWaitForLoad: job.pageTimeoutMs,
      emulatedUserAgent: job.userAgent,
      // The same sizes as the rest of the check (Lighthouse's own are 412 and 1350 px wide).
      formFactor: phone ? 'mobile' : 'desktop',
      screenEmulation: phone
        ? { mobile: true, width: 390, height: 844, deviceScaleFactor: 2, disabled: false }
        : { mobile: false, width: 1280, height: 800, deviceScaleFactor: 1, disabled: false },
    },
    phone ? undefined : desktopConfig,
  );
  const lhr = result?.lhr;
  if (!lhr) throw new Error('Lighthouse returned no result');
  if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
  const num = (id: string) => {
    const v = lhr.audits[id]?.numericValue;
    return typeof v === 'number' ? v : null;
  };
  const opportunities = Object.values(lhr.audits)
    // Opportunities Lighthouse did not pass (a passed one still lists its small savings).
    .filter((a) => a.details?.type === 'opportunity' && a.score !== null && a.score < 0.9)
    .map((a) => {
      const d = a.details as { overallSavingsMs?: number; overallSavingsBytes?: number };
      return {
        id: a.id,
        title: a.title,
        savingsMs: d.overallSavingsMs ?? null,
        savingsBytes: d.overallSavingsBytes ?? null,
      };
    })
    .filter((o) => (o.savingsMs ?? 0) > 0 || (o.savingsBytes ?? 0) > 0)
    .sort(
      (a, b) =>
        (b.savingsMs ?? 0) - (a.savingsMs ?? 0) || (b.savingsBytes ?? 0) - (a.savingsBytes ?? 0),
    )
    .slice(0, 3);
  return {
    score: lhr.categories.performance?.score ?? null,
    lcpMs: num('largest-contentful-paint'),
    cls: num('cumulative-layout-shift'),
    tbtMs: num('total-blocking-time'),
    opportunities,
  };
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  try {
    const figures = await measureWithLighthouse(JSON.parse(input) as LighthouseJob);
    process.stdout.write(`${JSON.stringify({ ok: true, figures })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ ok: false, error: (err as Error).message })}\n`);
  }
  process.exit(0);
}

if (process.argv[1] && /lighthouse-worker\.[jt]s$/.test(process.argv[1])) await main();
