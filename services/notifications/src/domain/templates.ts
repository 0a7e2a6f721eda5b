import { formatUsd, TESTER_SHARE_CENTS, type NotificationKind } from '@htm/contracts';
import { escapeHtml } from '@htm/service-kit/html';

/** What a message template may use (stored with the message when the event is handled). */
export interface MessageData {
  jobId?: string;
  title?: string;
  amountCents?: number;
  reason?: string;
  /** webhook_disabled: the endpoint's address. */
  url?: string;
  /** appeal_decided: what was appealed, the decision and the admin's note. */
  kind?: 'strike' | 'rating';
  decision?: 'overturn' | 'uphold';
  note?: string | null;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

const usd = formatUsd;

interface Body {
  subject: string;
  lines: string[];
  action: { label: string; path: string };
}

function bodyOf(kind: NotificationKind, d: MessageData): Body {
  const job = d.title ? `"${d.title}"` : 'your job';
  const jobPath = d.jobId ? `/dashboard?job=${encodeURIComponent(d.jobId)}` : '/dashboard';
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
    case 'work_submitted':
      return {
        subject: 'Your results are ready',
        lines: [
          `The tester has submitted the findings for ${job}.`,
          'Review them, then accept the work or ask for one revision.',
        ],
        action: { label: 'Review the results', path: jobPath },
      };
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
      return {
        subject: "You're approved to test",
        lines: [
          'Your tester account has been approved.',
          'Paid jobs you can take are waiting on your dashboard.',
        ],
        action: { label: 'Find a job', path: '/dashboard' },
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
    case 'appeal_decided': {
      const what = d.kind === 'rating' ? 'rating' : 'strike';
      const where = d.title ? ` on "${d.title}"` : '';
      return d.decision === 'overturn'
        ? {
            subject: `Your appeal was accepted: the ${what} is removed`,
            lines: [
              `We looked at your appeal of the ${what}${where} and removed it.`,
              d.kind === 'rating' ? 'It no longer counts in your average rating.' : 'It no longer counts against you.',
              ...(d.note ? [`The admin's note: ${d.note}`] : []),
            ],
            action: { label: 'Open your dashboard', path: '/dashboard' },
          }
        : {
            subject: `Your appeal of the ${what} was not accepted`,
            lines: [`We looked at your appeal of the ${what}${where} and kept it.`, ...(d.note ? [`The admin's note: ${d.note}`] : [])],
            action: { label: 'Open your dashboard', path: '/dashboard' },
          };
    }
    case 'tester_paid':
      return {
        subject: `You were paid ${usd(d.amountCents ?? 0)}`,
        lines: [`A payout of ${usd(d.amountCents ?? 0)} is on its way to your account.`],
        action: { label: 'See your earnings', path: '/dashboard?tab=earnings' },
      };
  }
}

/** The e-mail of one kind: plain text and HTML with the same words, a link to the right screen, the unsubscribe link. */
export function renderMessage(
  kind: NotificationKind,
  data: MessageData,
  opts: { name: string; publicUrl: string; unsubscribeUrl: string },
): RenderedMessage {
  const b = bodyOf(kind, data);
  const link = new URL(b.action.path, opts.publicUrl).toString();
  const hello = opts.name ? `Hi ${opts.name},` : 'Hi,';
  const footer = `You get this e-mail because of your account at Human Website Testing. Unsubscribe from these e-mails: ${opts.unsubscribeUrl}`;
  const text = [hello, '', ...b.lines, '', `${b.action.label}: ${link}`, '', '--', footer, ''].join(
    '\n',
  );
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>${escapeHtml(hello)}</p>
${b.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
<p><a href="${escapeHtml(link)}">${escapeHtml(b.action.label)}</a></p>
<hr><p style="font-size:12px;color:#555">You get this e-mail because of your account at Human Website Testing.
<a href="${escapeHtml(opts.unsubscribeUrl)}">Unsubscribe from these e-mails</a></p>
</body></html>`;
  return { subject: b.subject, text, html };
}
