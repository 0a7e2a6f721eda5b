// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- mjml 5 ships no types; the declaration must reach every tsconfig that compiles this file
/// <reference path="./mjml.d.ts" />
import {
  BRAND_NAME,
  formatUsd,
  PRICE_PER_TEST_CENTS,
  severityWord,
  TESTER_SHARE_CENTS,
  testersHitText,
  type NotificationKind,
} from '@htm/contracts';
import { REPLACEMENT_TURNAROUND } from '@htm/contracts/marketplace';
import { escapeHtml } from '@htm/service-kit/html';

/** What a message template may use (stored with the message when the event is handled). */
export interface MessageData {
  jobId?: string;
  title?: string;
  amountCents?: number;
  reason?: string;
  /** webhook_disabled: the endpoint's address; data_export_ready: the signed download link. */
  url?: string;
  /** data_export_ready: when the link expires; account_deletion_scheduled: when the account is erased. */
  at?: string;
  /** tester_approved: the tester's country (null: not chosen yet, e.g. a landing-page signup). */
  country?: string | null;
  /** job_paid, replacement_coming: when the results are expected (ISO). */
  expectedBy?: string;
  /** job_digest: the jobs the tester can take. */
  jobs?: Array<{ id: string; title: string }>;
  /** job_digest: jobs left out of the list (they are on the dashboard). */
  more?: number;
  /** A recipient without an account yet (a landing-page signup): where to write and how to greet. */
  email?: string;
  name?: string | null;
  /** appeal_decided: what was appealed, the decision and the admin's note. */
  kind?: 'strike' | 'rating' | 'session_check';
  decision?: 'overturn' | 'uphold';
  note?: string | null;
  /** replacement_coming, session_held, session_borderline, work_submitted (a borderline check's warning): the session check's reasons in the reader's words. */
  reasons?: string[];
  /** work_submitted: the report's summary's first problems (issue #51), worst first. */
  problems?: Array<{
    title: string;
    severity: string | null;
    testersHit: number;
    testersTotal: number;
  }>;
  /** work_submitted: the job's pack (its problems are the pack's, what its testers agree on). */
  packId?: string | null;
  /** work_submitted: a report released after its job went to another tester (free, the platform pays). */
  extra?: boolean;
  /** work_submitted: queued before the summary; it goes at MAIL_SUMMARY_WAIT_MS without one. */
  awaitingSummary?: boolean;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

const usd = formatUsd;

/** One e-mail's words: the same in the plain-text and the HTML part. */
export interface MessageBody {
  subject: string;
  lines: string[];
  /** A list under the lines (the job digest's jobs; the results' problems, each `linked` to its place). */
  items?: Array<{ label: string; path: string; linked?: boolean }>;
  action: { label: string; path: string };
}

/** "Mon, Nov 30, 2026, 2:00 PM UTC": e-mails do not know the reader's time zone, so they say UTC. */
export function formatEmailDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toLocaleString('en-US', {
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
  })} UTC`;
}

const jobPathOf = (jobId?: string) =>
  jobId ? `/dashboard?job=${encodeURIComponent(jobId)}` : '/dashboard';

/** The words of each kind of e-mail. */
export function messageBody(kind: NotificationKind, d: MessageData): MessageBody {
  const job = d.title ? `"${d.title}"` : 'your job';
  const jobPath = jobPathOf(d.jobId);
  switch (kind) {
    case 'job_claimed':
      return {
        subject: 'A tester is on your job',
        lines: [
          `A tester has started testing ${job}.`,
          'You will get another e-mail as soon as the results are in.',
        ],
        action: { label: 'See your job', path: jobPath },
      };
    case 'work_submitted': {
      // A report released after its job went to another tester (an upheld appeal): one more, free.
      if (d.extra)
        return {
          subject: `One more report on ${job}, at no cost to you`,
          lines: [
            `A report on ${job} that our automatic check had held back turned out to be fine after all (its tester's appeal was upheld).`,
            'You can read it whole beside the report you already have, on the job. Nothing is charged: we pay its tester.',
          ],
          action: { label: 'Read it on your job', path: jobPath },
        };
      // What to fix first (the report's summary, a pack's over all its testers), each linked to its
      // place in the report.
      const problems = (d.problems ?? []).slice(0, 3);
      const at = (i: number) =>
        d.packId
          ? `/dashboard?pack=${encodeURIComponent(d.packId)}&problem=${i + 1}`
          : `${jobPath}${d.jobId ? '&' : '?'}problem=${i + 1}`;
      return {
        subject: 'Your results are ready',
        lines: [
          `The tester has submitted the findings for ${job}.`,
          ...(d.reasons?.length
            ? [
                'Our check of the session found something you should know:',
                ...d.reasons,
                'If the report does not help you, you can get a free replacement from the report.',
              ]
            : []),
          'Review them, then accept the work or ask for one revision.',
          ...(problems.length
            ? [d.packId ? 'What your testers agree you should fix first:' : 'Fix first:']
            : []),
        ],
        items: problems.map((p, i) => ({
          label: `${p.title} (${severityWord(p.severity)}, ${testersHitText({ testers_hit: p.testersHit, testers_total: p.testersTotal })})`,
          path: at(i),
          linked: true,
        })),
        action: { label: 'Review the results', path: jobPath },
      };
    }
    case 'auto_accepted':
      return {
        subject: 'Your results were accepted automatically',
        lines: [
          `The review window for ${job} ended, so the submitted work was accepted automatically.`,
          'The full findings are open to you now.',
        ],
        action: { label: 'Read the findings', path: jobPath },
      };
    case 'tester_approved':
      // No country yet (a landing-page signup approved before signing in): no jobs can be shown to
      // them until they choose one, so the e-mail says what to do instead of "jobs are waiting".
      return d.country
        ? {
            subject: "You're approved to test",
            lines: [
              'Your tester account has been approved.',
              'Your dashboard lists the paid jobs open to testers in your country.',
            ],
            action: { label: 'Find a job', path: '/dashboard' },
          }
        : {
            subject: "You're approved to test",
            lines: [
              'Your tester signup has been approved.',
              'Sign in at the Tester Login with this Gmail address and choose where you test from; then you will see the paid jobs open to testers in your country.',
            ],
            action: { label: 'Go to the Tester Login', path: '/login/tester' },
          };
    case 'revision_requested':
      return {
        subject: 'The poster asked for a revision',
        lines: [
          `The poster of ${d.title ? `"${d.title}"` : 'a job you tested'} asked for one revision.`,
          ...(d.reason ? [`What they asked: ${d.reason}`] : []),
          'Please resubmit before the revision window ends.',
        ],
        action: { label: 'Open the job', path: jobPath },
      };
    case 'submission_accepted':
      return {
        subject: `You earned ${usd(d.amountCents ?? TESTER_SHARE_CENTS)}`,
        lines: [
          `Your work on ${d.title ? `"${d.title}"` : 'a job'} was accepted.`,
          `You earned ${usd(d.amountCents ?? TESTER_SHARE_CENTS)}; it is paid out with your next payout.`,
        ],
        action: { label: 'See your earnings', path: '/dashboard?tab=earnings' },
      };
    case 'webhook_disabled':
      return {
        subject: 'We switched off one of your webhooks',
        lines: [
          `Every delivery to ${d.url ?? 'your webhook endpoint'} failed for 3 days, so we stopped sending to it.`,
          'Check the endpoint, then add it again in Webhooks on your dashboard (its deliveries show what it answered).',
        ],
        action: { label: 'Open Webhooks', path: '/dashboard' },
      };
    case 'replacement_coming':
      return {
        subject: `Another tester is taking ${job}, at no cost to you`,
        lines: [
          d.reason === 'poster'
            ? `As you asked, the report on ${job} is being replaced.`
            : `The report on ${job} did not pass our checks, so we did not send it to you.`,
          ...(d.reasons ?? []),
          `Another tester will take the job on the same payment: nothing is charged again. Expect their report within ${REPLACEMENT_TURNAROUND} from now${d.expectedBy ? `, by ${formatEmailDate(d.expectedBy)} at the latest` : ''}.`,
        ],
        action: { label: 'See your job', path: jobPath },
      };
    case 'session_held':
      return {
        subject: `Your report on ${job} did not pass the checks`,
        lines: [
          'We check every report before the site owner sees it. Yours was not sent, because:',
          ...(d.reasons ?? []),
          'The job went to another tester, and this report earns nothing. Each reason is also on your dashboard.',
        ],
        action: { label: 'Open your dashboard', path: '/dashboard?tab=mine' },
      };
    case 'session_borderline':
      return {
        subject: `Your report on ${job} was sent to the site owner, with a warning`,
        lines: [
          'We check every report before the site owner sees it. Yours was delivered to them, with this one point marked as borderline:',
          ...(d.reasons ?? []),
          `Because of it, the site owner may ask for a free replacement by another tester (once per job). If they do, this report earns nothing; if they accept it, you earn ${usd(TESTER_SHARE_CENTS)} as usual.`,
        ],
        action: { label: 'Open your dashboard', path: '/dashboard?tab=mine' },
      };
    case 'pack_slot_refunded':
      return {
        subject: `We refunded ${usd(d.amountCents ?? 0)} for an unfilled tester slot`,
        lines: [
          `Nobody took one of the tester slots of ${job} in time, so we closed it.`,
          `${usd(d.amountCents ?? 0)} is on its way back to your card. The testers who took the other slots carry on as usual.`,
        ],
        action: { label: 'See your pack', path: jobPath },
      };
    case 'data_export_ready':
      return {
        subject: 'Your data is ready to download',
        lines: [
          'The archive of everything we hold about you (one file per part of the product, plus your files and recordings) is ready.',
          `Download it here (the link works until ${d.at ?? 'tomorrow'}): ${d.url ?? ''}`,
        ],
        // Opens the account's "Your data" dialog (web/src/app/shell.tsx), for every role.
        action: { label: 'Open Your data', path: '/dashboard?open=your-data' },
      };
    case 'account_deletion_scheduled':
      return {
        subject: 'Your account will be deleted',
        lines: [
          `You asked us to delete your account. It will be erased on ${d.at ?? 'the end of the grace period'}, and you have been signed out everywhere.`,
          'Changed your mind? Just sign in again before then and the deletion is cancelled.',
        ],
        action: { label: 'Sign in to keep your account', path: '/' },
      };
    case 'account_deletion_cancelled':
      return {
        subject: 'Your account will not be deleted',
        lines: [
          'You signed in again, so the deletion of your account is cancelled and everything stays as it was.',
          'If this was not you, sign in and end the sign-ins you do not recognise (Sign-ins), then ask for the deletion again.',
        ],
        action: { label: 'Open your dashboard', path: '/dashboard' },
      };
    case 'appeal_decided': {
      const where = d.title ? ` on "${d.title}"` : '';
      if (d.kind === 'session_check')
        return {
          subject:
            d.decision === 'overturn'
              ? 'Your appeal was accepted: your report counts after all'
              : 'Your appeal of the failed check was not accepted',
          lines: [
            d.decision === 'overturn'
              ? `We looked at your appeal of the check of your report${where}: it does not count against you. If the job was still waiting for another tester, your report went to the site owner, and you are paid once it is accepted.`
              : `We looked at your appeal of the check of your report${where}: the check stands, and it counts as a strike.`,
            ...(d.note ? [`The admin's note: ${d.note}`] : []),
          ],
          action: { label: 'Open your dashboard', path: '/dashboard' },
        };
      const what = d.kind === 'rating' ? 'rating' : 'strike';
      return d.decision === 'overturn'
        ? {
            subject: `Your appeal was accepted: the ${what} is removed`,
            lines: [
              `We looked at your appeal of the ${what}${where} and removed it.`,
              d.kind === 'rating'
                ? 'It no longer counts in your average rating.'
                : 'It no longer counts against you.',
              ...(d.note ? [`The admin's note: ${d.note}`] : []),
            ],
            action: { label: 'Open your dashboard', path: '/dashboard' },
          }
        : {
            subject: `Your appeal of the ${what} was not accepted`,
            lines: [
              `We looked at your appeal of the ${what}${where} and kept it.`,
              ...(d.note ? [`The admin's note: ${d.note}`] : []),
            ],
            action: { label: 'Open your dashboard', path: '/dashboard' },
          };
    }
    case 'tester_paid':
      return {
        subject: `You were paid ${usd(d.amountCents ?? 0)}`,
        lines: [`A payout of ${usd(d.amountCents ?? 0)} is on its way to your account.`],
        action: { label: 'See your earnings', path: '/dashboard?tab=earnings' },
      };
    case 'job_paid':
      return {
        subject: `Receipt: ${job} is paid and live`,
        lines: [
          `We received your payment of ${usd(d.amountCents ?? PRICE_PER_TEST_CENTS)} for ${job}${d.jobId ? ` (job ${d.jobId.slice(0, 8)})` : ''}.`,
          'Your job is now open to testers.',
          ...(d.expectedBy ? [`Results expected by ${formatEmailDate(d.expectedBy)}.`] : []),
          'We will e-mail you when a tester starts and when the results are ready.',
        ],
        action: { label: 'See your job', path: jobPath },
      };
    case 'claim_expired':
      return {
        subject: 'Your claim ran out of time',
        lines: [
          `The time to submit your work on ${d.title ? `"${d.title}"` : 'a job you claimed'} ran out, so the job went back to the other testers.`,
          'A claim that runs out counts as a strike. Claim a job only when you can finish it in time.',
        ],
        action: { label: 'Find another job', path: '/dashboard' },
      };
    case 'job_held_for_you':
      return {
        subject: `A job is held for you: ${d.title ? `"${d.title}"` : 'a new job'}`,
        lines: [
          `A poster you tested for wants you first: ${d.title ? `"${d.title}"` : 'their new job'} is held for you${d.at ? ` until ${formatEmailDate(d.at)}` : ''}.`,
          'Claim it from your dashboard before then; after that it opens to every tester.',
        ],
        action: { label: 'See the job', path: '/dashboard' },
      };
    case 'job_digest': {
      const jobs = d.jobs ?? [];
      return {
        subject:
          jobs.length === 1 ? 'A new job you can take' : `${jobs.length} new jobs you can take`,
        lines: [
          jobs.length === 1
            ? 'A paid job you can take was posted:'
            : `${jobs.length} paid jobs you can take were posted:`,
        ],
        items: [
          ...jobs.map((j) => ({ label: j.title, path: '/dashboard' })),
          ...(d.more
            ? [{ label: `and ${d.more} more on your dashboard`, path: '/dashboard' }]
            : []),
        ],
        action: { label: 'See available jobs', path: '/dashboard' },
      };
    }
  }
}

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";

/** The HTML part, as MJML (responsive, inlined styles for mail clients): every text is escaped. */
function mjmlOf(b: MessageBody, hello: string, link: string, unsubscribeUrl: string): string {
  const text = (s: string) => `<mj-text>${escapeHtml(s)}</mj-text>`;
  const items = b.items?.length
    ? `<mj-text><ul style="margin:0;padding-left:20px">${b.items
        .map((i) =>
          i.linked
            ? `<li><a href="${escapeHtml(new URL(i.path, link).toString())}" style="color:#1e40af">${escapeHtml(i.label)}</a></li>`
            : `<li>${escapeHtml(i.label)}</li>`,
        )
        .join('')}</ul></mj-text>`
    : '';
  return `<mjml lang="en">
  <mj-head>
    <mj-title>${escapeHtml(b.subject)}</mj-title>
    <mj-preview>${escapeHtml(b.lines[0] ?? b.subject)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="${FONT}" />
      <mj-text font-size="16px" line-height="1.5" color="#0f172a" padding="6px 24px" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f4f6fb">
    <mj-section padding="24px 0 8px">
      <mj-column>
        <mj-text font-size="20px" font-weight="700" color="#1e40af">${BRAND_NAME}</mj-text>
      </mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" border-radius="12px" padding="16px 0">
      <mj-column>
        ${text(hello)}
        ${b.lines.map(text).join('\n        ')}
        ${items}
        <mj-button href="${escapeHtml(link)}" background-color="#1e40af" color="#ffffff" font-weight="700" border-radius="8px" padding="16px 24px">${escapeHtml(b.action.label)}</mj-button>
        <mj-text font-size="13px" color="#475569">Or open <a href="${escapeHtml(link)}" style="color:#1e40af">${escapeHtml(link)}</a></mj-text>
      </mj-column>
    </mj-section>
    <mj-section padding="8px 0 24px">
      <mj-column>
        <mj-text font-size="12px" color="#475569">You get this e-mail because of your ${BRAND_NAME} account. <a href="${escapeHtml(unsubscribeUrl)}" style="color:#1e40af">Unsubscribe from these e-mails</a></mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
}

type Mjml = typeof import('mjml').default;
let mjml: Promise<Mjml> | undefined;
/** mjml is loaded on first use (it is large, and only the mail sender renders). */
const loadMjml = () => (mjml ??= import('mjml').then((m) => m.default));

/**
 * The e-mail of one kind: a plain-text and an HTML part with the same words (the HTML built with
 * MJML), a link to the right screen, and the unsubscribe link.
 */
export async function renderMessage(
  kind: NotificationKind,
  data: MessageData,
  opts: { name: string; publicUrl: string; unsubscribeUrl: string },
): Promise<RenderedMessage> {
  const b = messageBody(kind, data);
  const link = new URL(b.action.path, opts.publicUrl).toString();
  const hello = opts.name ? `Hi ${opts.name},` : 'Hi,';
  const footer = `You get this e-mail because of your ${BRAND_NAME} account. Unsubscribe from these e-mails: ${opts.unsubscribeUrl}`;
  const text = [
    hello,
    '',
    ...b.lines,
    ...(b.items?.length
      ? [
          '',
          ...b.items.map((i) =>
            i.linked
              ? `- ${i.label}: ${new URL(i.path, opts.publicUrl).toString()}`
              : `- ${i.label}`,
          ),
        ]
      : []),
    '',
    `${b.action.label}: ${link}`,
    '',
    '--',
    footer,
    '',
  ].join('\n');
  const out = await (
    await loadMjml()
  )(mjmlOf(b, hello, link, opts.unsubscribeUrl), {
    validationLevel: 'strict',
  });
  return { subject: b.subject, text, html: out.html };
}
