import { EXAMPLE_JOB as JOB, EXAMPLE_SUBMISSION } from '@htm/contracts/example-report';
import type { SubmissionView } from '@htm/contracts/jobs';
import { Link } from 'react-router';
import { JobCardHead } from '../../../components/job-card-head';
import { AgreementList } from '../../../components/agreement-list';
import { FullResults, SubmissionPreview } from '../../../components/job-results';
import { formatDate } from '../../../lib/format';
import { InfoPage } from './info-page';
import card from '../../../components/card.module.css';
import { badgeClass } from '../../../components/badge';
import jobCard from '../../../components/job-card.module.css';
import styles from './example-report.module.css';
import { buttonClass } from '../../../components/button';

/**
 * The example's report with the media a poster really gets: the tester's screen recording (each
 * finding pinned to its moment) and their screenshot (web/public/example/, made from a mock of the
 * made-up bakery site).
 */
const MOMENTS_MS = [6_500, 8_600, 2_400];
/** Static files of the web app (not API routes). */
const MEDIA = {
  recording: '/example/recording.webm',
  screenshot: '/example/screenshot.png',
};
const SUBMISSION: SubmissionView = {
  ...EXAMPLE_SUBMISSION,
  file_urls: [MEDIA.screenshot],
  file_names: ['checkout-saturday.png'],
  findings: (EXAMPLE_SUBMISSION.findings ?? []).map((f, i) => ({
    ...f,
    at_ms: MOMENTS_MS[i] ?? null,
  })),
  recording: {
    id: 'example-recording',
    url: MEDIA.recording,
    mime_type: 'video/webm',
    duration_ms: 10_100,
    size_bytes: 40_012,
  },
};

/** With three testers ordered: what they agree on (the same grouping a pack's poster sees). */
const AGREEMENT = {
  pack: { id: 'example-pack', size: 3, claimed: 3, submitted: 3, completed: 3, closed: 0 },
  reported: 3,
  clusters: [
    {
      summary: 'Saturday pick-up is greyed out with no reason given',
      count: 3,
      job_ids: ['a', 'b', 'c'],
      findings: [
        {
          job_id: 'a',
          submission_id: 'example-a',
          finding_index: 0,
          text: 'Saturday pick-up is greyed out with no reason given',
          severity: 'blocker' as const,
        },
        {
          job_id: 'b',
          submission_id: 'example-b',
          finding_index: 0,
          text: 'I could not choose Saturday and did not know why',
          severity: 'blocker' as const,
        },
        {
          job_id: 'c',
          submission_id: 'example-c',
          finding_index: 0,
          text: 'Weekend dates are disabled in checkout, no explanation',
          severity: 'major' as const,
        },
      ],
    },
    {
      summary: 'The cart icon still says 0 after adding a cake',
      count: 2,
      job_ids: ['a', 'c'],
      findings: [
        {
          job_id: 'a',
          submission_id: 'example-a',
          finding_index: 1,
          text: 'The cart icon still says 0 after adding a cake',
          severity: 'major' as const,
        },
        {
          job_id: 'c',
          submission_id: 'example-c',
          finding_index: 1,
          text: 'Cart count did not update until I refreshed',
          severity: 'major' as const,
        },
      ],
    },
    {
      summary: '"Add to cart" sits below four photos on a phone',
      count: 1,
      job_ids: ['a'],
      findings: [
        {
          job_id: 'a',
          submission_id: 'example-a',
          finding_index: 2,
          text: '"Add to cart" sits below four photos on a phone',
          severity: 'minor' as const,
        },
      ],
    },
  ],
};

/** /example-report: a complete report as a poster sees it, linked from the landing page. */
export default function ExampleReportPage() {
  return (
    <InfoPage
      title="Example report"
      lead="This is what you get for $1: a real test of a made-up bakery site, shown exactly as a site owner sees it once the results are unlocked: the screen recording with each finding on its timeline, findings ranked by severity with steps, the answers to your checklist and the tester's screenshot."
    >
      <article
        className={`${card.card} ${styles['example-report']}`}
        aria-labelledby="example-report-title"
      >
        <h2 id="example-report-title" className="sr-only">
          The report: {JOB.title}
        </h2>
        <div className={styles['example-report__head']}>
          <div>
            <JobCardHead job={JOB} />
            <p className="job-card__desc" dir="auto">
              {JOB.what_to_test}
            </p>
            <p className={jobCard['job-card__meta']}>
              Posted {formatDate(JOB.created_at)} · first result 2 h 51 min after payment · accepted{' '}
              {formatDate(JOB.completed_at)}
            </p>
          </div>
          <span className={badgeClass('completed')}>Completed</span>
        </div>
        <SubmissionPreview submission={SUBMISSION} />
        <FullResults job={JOB} submission={SUBMISSION} />
        <section className="example-report__more" aria-labelledby="example-agree-title">
          <h3 id="example-agree-title">Ordered three testers? What they agree on</h3>
          <p className="muted">
            Order up to 10 testers in one checkout ($1 each): their findings are grouped, so you see
            at once what several real people hit.
          </p>
          <AgreementList view={AGREEMENT} />
        </section>
        <section className="example-report__more" aria-labelledby="example-share-title">
          <h3 id="example-share-title">Share it with your team</h3>
          <p className="muted">
            Every report has a private share link (read-only, signed out too, with an expiry you
            choose), a PDF download, and &quot;Send to GitHub&quot; or &quot;Send to Jira&quot; for
            each finding.
          </p>
        </section>
      </article>
      <p className={styles['example-report__cta']}>
        <Link className={buttonClass('primary', 'lg')} to="/#job-request">
          Get your site tested for $1
        </Link>
      </p>
    </InfoPage>
  );
}
