import { useId, useState } from 'react';
import {
  HEALTH_CHECK_LISTED,
  HEALTH_CHECK_TITLE,
  healthCheckLines,
  SITE_CHECK_SIZES,
  type SiteCheckImpact,
  type SiteCheckResponse,
} from '@htm/contracts/site-check';
import { useGetSiteCheckQuery, useSiteCheckState } from '../lib/site-check-api';
import { formatDate } from '../lib/format';
import styles from './health-check.module.css';
import { buttonClass } from './button';

/** Each impact's badge colour. */
const IMPACT_CLASS: Record<SiteCheckImpact, string> = {
  critical: styles.critical,
  serious: styles.serious,
  moderate: styles.moderate,
  minor: styles.minor,
};

/** Asked again this often while the check is waiting or running (it takes about a minute). */
const POLL_MS = 5000;

const SIZE_LABEL = { phone: 'On a phone (390 px wide)', desktop: 'On a computer (1280 px wide)' };

const isFinal = (c: SiteCheckResponse | undefined) =>
  !!c && (c.state === 'done' || c.state === 'failed' || c.state === 'unavailable');

const isNotFound = (error: unknown) =>
  !!error && typeof error === 'object' && (error as { status?: unknown }).status === 404;

/**
 * The machine health check of a paid job's site (issue 53), in plain language: what a machine
 * found on a phone and a computer, the speed scores, the screenshots, and the details behind
 * them. The owner sees it in the job's report; the tester holding the job sees it before
 * starting, so they look where a machine cannot.
 */
export function HealthCheck({
  jobId,
  audience = 'owner',
  titleShown = true,
}: {
  jobId: string;
  audience?: 'owner' | 'tester';
  /** False under a disclosure whose summary already names it: the title is for screen readers then. */
  titleShown?: boolean;
}) {
  const titleId = useId();
  // Asked again while there is nothing final to show; not once the result is in.
  const cached = useSiteCheckState(jobId).data;
  const { data, error, isLoading } = useGetSiteCheckQuery(jobId, {
    pollingInterval: isFinal(cached) ? 0 : POLL_MS,
    skipPollingIfUnfocused: true,
  });
  const final = isFinal(data);
  return (
    <section className={styles.root} aria-labelledby={titleId}>
      <h3 className={titleShown ? styles.title : 'sr-only'} id={titleId}>
        {HEALTH_CHECK_TITLE}
      </h3>
      {audience === 'tester' ? (
        <p className={styles.tester}>
          A machine already checked this site. Spend your time where a machine cannot look: is it
          clear, does it make sense, can you do what the poster asked?
        </p>
      ) : null}
      {isLoading ? <p className={styles.muted}>Loading the health check…</p> : null}
      {!data && !isLoading && isNotFound(error) ? (
        <p className={styles.muted} role="status">
          A machine is about to check the site on a phone and a computer. This takes about a minute.
        </p>
      ) : null}
      {!data && !isLoading && error && !isNotFound(error) ? (
        <p className={styles.muted}>The health check could not be loaded. Please try again.</p>
      ) : null}
      {data && !final ? (
        <p className={styles.muted} role="status">
          A machine is checking the site on a phone and a computer. This takes about a minute.
        </p>
      ) : null}
      {data && final ? <Result check={data} /> : null}
    </section>
  );
}

function Result({ check }: { check: SiteCheckResponse }) {
  // The worst first, as every report lists them; the rest on demand.
  const [allShown, setAllShown] = useState(false);
  const listId = useId();
  const findings = check.summary?.findings ?? [];
  const lines = healthCheckLines(
    {
      state: check.state === 'done' ? 'done' : 'failed',
      summary: check.summary,
      failure: check.failure,
      checked_at: check.checked_at ?? new Date().toISOString(),
    },
    formatDate,
  );
  const shots = SITE_CHECK_SIZES.map((size) => check.sizes.find((s) => s.size === size)).filter(
    (s): s is SiteCheckResponse['sizes'][number] => !!s?.screenshot,
  );
  return (
    <>
      <p className={styles.intro}>{lines.intro}</p>
      {findings.length ? (
        <ul className={styles.findings} id={listId}>
          {findings.slice(0, allShown ? undefined : HEALTH_CHECK_LISTED).map((f) => (
            <li className={styles.finding} key={f.key}>
              <span className={`${styles.impact} ${IMPACT_CLASS[f.impact]}`}>{f.impact}</span>
              <span>{f.text}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {lines.more ? (
        <p className={styles.muted}>
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            aria-expanded={allShown}
            aria-controls={listId}
            onClick={() => setAllShown(!allShown)}
          >
            {allShown
              ? `Show the first ${HEALTH_CHECK_LISTED} only`
              : `Show ${lines.more} more ${lines.more === 1 ? 'finding' : 'findings'}`}
          </button>
        </p>
      ) : null}
      {lines.speed ? <p className={styles.muted}>{lines.speed}</p> : null}
      {shots.length ? (
        <div className={styles.shots}>
          {shots.map((s) => (
            <figure className={styles.shot} key={s.size}>
              <img
                src={s.screenshot!}
                alt={`The page as the check saw it ${s.size === 'phone' ? 'on a phone' : 'on a computer'}`}
                width={s.width}
                height={s.height}
                loading="lazy"
              />
              <figcaption>{SIZE_LABEL[s.size]}</figcaption>
            </figure>
          ))}
        </div>
      ) : null}
      {check.state === 'done' ? <Details check={check} /> : null}
    </>
  );
}

/** What the findings rest on: rules and elements, requests, links, Lighthouse's opportunities. */
function Details({ check }: { check: SiteCheckResponse }) {
  return (
    <details className={styles.details}>
      <summary>Technical details</summary>
      {check.sizes.map((s) => (
        <div key={s.size}>
          <h4>{SIZE_LABEL[s.size]}</h4>
          <ul>
            {s.performance ? (
              <li>
                Lighthouse: speed score {s.performance.score ?? '—'}, largest content after{' '}
                {s.performance.lcp_ms != null
                  ? `${(s.performance.lcp_ms / 1000).toFixed(1)} s`
                  : '—'}
                , layout shift {s.performance.cls ?? '—'}, blocking time{' '}
                {s.performance.tbt_ms != null ? `${Math.round(s.performance.tbt_ms)} ms` : '—'}
              </li>
            ) : null}
            {s.performance?.opportunities.map((o) => (
              <li key={o.id}>
                {o.title}
                {o.savings_ms ? ` (could save ${(o.savings_ms / 1000).toFixed(1)} s)` : ''}
              </li>
            ))}
            {s.accessibility.map((a) => (
              <li key={a.rule}>
                {a.help} ({a.count}): {a.elements.map((e) => e.selector).join(', ')}
              </li>
            ))}
            {s.failed_requests.map((f) => (
              <li key={`${f.method} ${f.url}`}>
                Failed to load ({f.status ?? f.error}): {f.url}
              </li>
            ))}
            {s.console_errors.map((c, i) => (
              <li key={`c${i}`}>Console error: {c.text}</li>
            ))}
            {s.exceptions.map((x, i) => (
              <li key={`x${i}`}>Script error: {x.message}</li>
            ))}
            <li>
              Page weight: {(s.page_bytes / 1024).toFixed(0)} KB in {s.requests} requests
            </li>
          </ul>
        </div>
      ))}
      {check.links.broken.length ? (
        <>
          <h4>Broken links</h4>
          <ul>
            {check.links.broken.map((l) => (
              <li key={l.url}>
                {l.url} ({l.status ?? 'no answer'})
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {check.blocked.length ? (
        <>
          <h4>Not fetched (private addresses)</h4>
          <ul>
            {check.blocked.map((b) => (
              <li key={b.url}>
                {b.url}: {b.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </details>
  );
}

/** The health check behind a disclosure on a job's card: fetched only once opened. */
export function HealthCheckDisclosure({
  jobId,
  audience = 'owner',
  summary = HEALTH_CHECK_TITLE,
}: {
  jobId: string;
  audience?: 'owner' | 'tester';
  summary?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <details
      className={styles.disclosure}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>{summary}</summary>
      {open ? <HealthCheck jobId={jobId} audience={audience} titleShown={false} /> : null}
    </details>
  );
}
