import { useState } from 'react';
import { appealBodySchema, type AppealableView, type AppealBody } from '@htm/contracts/appeals';
import { APPEAL_MESSAGE_MAX, APPEAL_MESSAGE_MIN } from '@htm/contracts/marketplace';
import {
  formSchema,
  SchemaForm,
  SubmitButton,
  TextArea,
  useSchemaForm,
} from '../../../components/schema-form';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import { useFileAppealMutation, useListMyMarksQuery } from '../api/appeals';
import { buttonClass } from '../../../components/button';
import panel from '../../../components/panel.module.css';
import pageStyles from '../../../components/page.module.css';
import entry from '../../../components/entry.module.css';

/** What is appealed, in the words of the screen. */
const NOUN: Record<AppealableView['kind'], string> = {
  strike: 'strike',
  rating: 'rating',
  session_check: 'failed check',
};

const STATUS_TEXT = {
  open: 'Appeal sent: an admin will decide',
  overturned: 'Appeal accepted: removed',
  upheld: 'Appeal not accepted',
} as const;

/** POST /api/appeals's schema over the reason typed for `item`. */
const appealSchema = (item: AppealableView) =>
  formSchema(
    (v: { message: string }) => ({ job_id: item.job_id, kind: item.kind, message: v.message }),
    appealBodySchema,
  );

function AppealForm({ item, onDone }: { item: AppealableView; onDone?: () => void }) {
  const form = useSchemaForm(appealSchema(item), { message: '' });
  const [fileAppeal] = useFileAppealMutation();
  const { status } = useNotify();
  const submit = async (body: AppealBody) => {
    const res = await fileAppeal(body);
    if ('error' in res && res.error)
      form.setError('message', {
        type: 'server',
        message: errorMessage(res.error, 'Failed to send the appeal'),
      });
    else {
      status('Appeal sent. An admin will decide and we will e-mail you.');
      onDone?.();
    }
  };
  return (
    <SchemaForm
      form={form}
      onValid={submit}
      className={pageStyles.stack}
      aria-label={`Appeal the ${NOUN[item.kind]} on ${item.job_title || 'a job'}`}
    >
      <TextArea
        name="message"
        label={
          item.kind === 'session_check'
            ? 'Why should your report count after all?'
            : `Why should this ${NOUN[item.kind]} be removed?`
        }
        hint={`${APPEAL_MESSAGE_MIN} to ${APPEAL_MESSAGE_MAX} characters; you can appeal once.`}
        rows={3}
        maxLength={APPEAL_MESSAGE_MAX}
      />
      <div>
        <SubmitButton className={buttonClass('primary', 'sm')}>Send appeal</SubmitButton>
      </div>
    </SchemaForm>
  );
}

/**
 * The tester's strikes, ratings of 1-2 stars (#34) and failed session checks (#52), each with its
 * reason and one appeal.
 * `paused`: the tester was released by the strike rule and this is all their dashboard shows, so
 * each strike they can still appeal has its appeal form open (an overturn makes them active again).
 */
export function StrikesPanel({ paused = false }: { paused?: boolean }) {
  const { data: items = [] } = useListMyMarksQuery();
  const [open, setOpen] = useState<string | null>(null);
  // When the panel opened: whether the 14 days have passed (the list refetches on every visit).
  const [now] = useState(() => Date.now());
  if (!items.length) return null;
  return (
    <section className={panel.panel} aria-labelledby="marks-title">
      <h2 id="marks-title">
        {paused ? 'Your strikes and why' : 'Strikes, low ratings and failed checks'}
      </h2>
      <ul className={entry['entry-list']}>
        {items.map((item) => {
          const key = `${item.kind}:${item.job_id}`;
          const canAppeal =
            !item.appeal && !item.overturned && Date.parse(item.appealable_until) > now;
          // Paused: a strike's form is open at once (appealing it is what this screen is for).
          const formOpen = open === key || (paused && item.kind === 'strike');
          return (
            <li key={key} className={`${entry.entry} ${entry['entry--stack']}`}>
              <div>
                <strong>
                  {item.kind === 'rating'
                    ? `Rating: ${item.stars} ★`
                    : item.kind === 'strike'
                      ? 'Strike'
                      : 'Failed check'}
                </strong>{' '}
                on {item.job_title || 'a job'}{' '}
                <span className="muted">({formatDate(item.at)})</span>
                <p>Reason: {item.reason}</p>
                {item.appeal ? (
                  <p className="muted">
                    {STATUS_TEXT[item.appeal.status]}
                    {item.appeal.decision_note ? ` — ${item.appeal.decision_note}` : ''}
                  </p>
                ) : item.overturned ? (
                  <p className="muted">Removed.</p>
                ) : !canAppeal ? (
                  <p className="muted">The 14 days to appeal have passed.</p>
                ) : (
                  <p className="muted">You can appeal until {formatDate(item.appealable_until)}.</p>
                )}
              </div>
              {canAppeal && !formOpen ? (
                <button
                  type="button"
                  className={buttonClass('secondary', 'sm')}
                  onClick={() => setOpen(key)}
                >
                  Appeal this {NOUN[item.kind]}
                </button>
              ) : null}
              {canAppeal && formOpen ? (
                <AppealForm item={item} onDone={() => setOpen(null)} />
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
