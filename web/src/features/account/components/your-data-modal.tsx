import { useState } from 'react';
import { z } from 'zod';
import {
  deletionBodySchema,
  PRIVACY_SERVICES,
  privacyMessages,
  type DeletionBody,
} from '@htm/contracts/privacy';
import { FormMessage } from '../../../components/field';
import {
  SchemaForm,
  SubmitButton,
  TextField,
  useSchemaForm,
} from '../../../components/schema-form';
import { Loading } from '../../../components/loading';
import { Modal } from '../../../components/modal';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import type { UserDto as User } from '@htm/contracts/identity';
import {
  useGetPrivacyQuery,
  useRequestDeletionMutation,
  useRequestExportMutation,
} from '../api/privacy';
import styles from './your-data-modal.module.css';
import { buttonClass } from '../../../components/button';

const SERVICE_LABEL: Record<string, string> = {
  identity: 'profile and sign-ins',
  jobs: 'jobs, reports and files',
  payments: 'payments and earnings',
  admin: 'forms you sent',
  notifications: 'e-mails',
  analytics: 'statistics',
};

/**
 * The deletion's schema: the account's own e-mail, typed (any case), then POST /api/me/deletion's
 * body schema.
 */
const deletionSchema = (accountEmail: string) =>
  z
    .object({ email: z.string() })
    .refine((v) => v.email.trim().toLowerCase() === accountEmail.toLowerCase(), {
      path: ['email'],
      error: privacyMessages.emailMismatch,
    })
    .pipe(deletionBodySchema);

/**
 * Profile: "Your data". Download my data (an archive built in the background, progress shown,
 * e-mailed with a link that lasts 24 hours, once a day) and Delete my account (type the e-mail
 * to confirm; signed out at once; erased after 7 days unless the user signs in again).
 */
export default function YourDataModal({
  user,
  onClose,
  onDeleted,
}: {
  user: User;
  onClose: () => void;
  /** The deletion is scheduled for `dueAt` (every sign-in has ended). */
  onDeleted: (dueAt: string) => void;
}) {
  const [building, setBuilding] = useState(false);
  const { data, error, isLoading } = useGetPrivacyQuery(undefined, {
    pollingInterval: building ? 1500 : 0,
  });
  const [requestExport, { isLoading: asking }] = useRequestExportMutation();
  const [requestDeletion] = useRequestDeletionMutation();
  const [exportMessage, setExportMessage] = useState<string | null>(null);
  const deletion = useSchemaForm(deletionSchema(user.email), { email: '' });
  const { status } = useNotify();
  const [openedAt] = useState(() => Date.now());

  const exp = data?.export ?? null;
  const inProgress = exp?.status === 'pending' || exp?.status === 'building';
  if (inProgress !== building) setBuilding(inProgress);
  const nextAllowed = exp && exp.status !== 'failed' ? new Date(exp.next_allowed_at) : null;
  const limited = nextAllowed !== null && nextAllowed.getTime() > openedAt && !inProgress;

  const startExport = async () => {
    setExportMessage(null);
    const res = await requestExport();
    if ('error' in res && res.error) {
      setExportMessage(errorMessage(res.error, 'Could not start your download.'));
      return;
    }
    status('Preparing your download. We will e-mail you a link when it is ready.');
  };

  const del = async (body: DeletionBody) => {
    const res = await requestDeletion(body);
    if ('error' in res && res.error) {
      deletion.setError('email', {
        type: 'server',
        message: errorMessage(res.error, 'Could not delete your account.'),
      });
      return;
    }
    onDeleted(res.data.deletion.due_at);
  };

  return (
    <Modal title="Your data" onClose={onClose}>
      {isLoading ? <Loading label="Loading…" /> : null}
      {error ? (
        <FormMessage error={errorMessage(error, 'Could not load your data settings.')} />
      ) : null}
      <section className={styles['your-data__section']} aria-labelledby="download-heading">
        <h3 id="download-heading">Download my data</h3>
        <p className="muted">
          One archive (zip) with everything we hold about you: your profile and sign-ins, jobs,
          reports and findings, ratings, payments, earnings and payouts, e-mails we sent, and your
          own uploaded files and recordings. We e-mail you a link that works for 24 hours. You can
          ask once a day.
        </p>
        {inProgress && exp ? (
          <div role="status" aria-live="polite">
            <label htmlFor="export-progress">Preparing your download: {exp.progress}%</label>
            <progress
              id="export-progress"
              className={styles['your-data__progress']}
              max={100}
              value={exp.progress}
            />
            <div className="muted">
              Done:{' '}
              {exp.parts_done.length
                ? exp.parts_done.map((s) => SERVICE_LABEL[s] ?? s).join(', ')
                : 'starting…'}{' '}
              ({exp.parts_done.length} of {PRIVACY_SERVICES.length})
            </div>
          </div>
        ) : null}
        {exp?.status === 'ready' ? (
          <FormMessage
            success={`Your download is ready: we e-mailed a link to ${user.email}. It works until ${formatDate(exp.expires_at)}.`}
          />
        ) : null}
        {exp?.status === 'failed' ? (
          <FormMessage error="Your last download could not be prepared. Please try again." />
        ) : null}
        <FormMessage error={exportMessage} />
        <div className="form__actions">
          <button
            type="button"
            className={buttonClass('primary')}
            onClick={startExport}
            disabled={asking || inProgress || limited}
          >
            {inProgress ? 'Preparing…' : 'Download my data'}
          </button>
          {limited && nextAllowed ? (
            <span className="muted">
              You can ask again after {formatDate(nextAllowed.toISOString())}.
            </span>
          ) : null}
        </div>
      </section>
      <hr />
      {user.type === 'admin' ? (
        <p className="muted">
          The admin account cannot be deleted: name another admin (ADMIN_EMAIL) first.
        </p>
      ) : (
        <section className={styles['your-data__section']} aria-labelledby="delete-heading">
          <h3 id="delete-heading">Delete my account</h3>
          <p className="muted">
            You are signed out everywhere at once. After 7 days we erase your profile, jobs&apos;
            personal details, reports&apos; files and recordings, sign-ins and e-mails in every part
            of the product. Money records are kept for accounting, with your name replaced by an
            anonymous id. Sign in again within the 7 days to cancel. Paid jobs no tester has started
            are refunded.
          </p>
          {data?.deletion?.status === 'cancelled' ? (
            <p className="muted">
              Your last deletion request was cancelled when you signed in again.
            </p>
          ) : null}
          <SchemaForm form={deletion} onValid={del} className="form" aria-label="Delete my account">
            <TextField
              name="email"
              label={`Type your e-mail (${user.email}) to confirm`}
              type="email"
              autoComplete="off"
            />
            <div className="form__actions">
              <SubmitButton className={buttonClass('danger')} busyLabel="Deleting…">
                Delete my account
              </SubmitButton>
              <button
                type="button"
                className={buttonClass('ghost')}
                onClick={onClose}
                data-autofocus
              >
                Close
              </button>
            </div>
          </SchemaForm>
        </section>
      )}
    </Modal>
  );
}
