import { useState, type FormEvent } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { Loading } from '../../../components/loading';
import { Table } from '../../../components/table';
import { errorMessage } from '../../../lib/error-message';
import { formatDate, shortId } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import {
  useAdminRunExportMutation,
  useAdminScheduleDeletionMutation,
  useGetAdminPrivacyQuery,
} from '../api/privacy-requests';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Admin: "Privacy". Data exports and account deletions in progress (and the last month's), and
 * running one for a user who asked by e-mail (both are written to the audit log).
 */
export function PrivacyTab() {
  const { data, error, isLoading } = useGetAdminPrivacyQuery(undefined, { pollingInterval: 5000 });
  const [runExport, { isLoading: exporting }] = useAdminRunExportMutation();
  const [scheduleDeletion, { isLoading: deleting }] = useAdminScheduleDeletionMutation();
  const [userId, setUserId] = useState('');
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});
  const { status } = useNotify();

  const idError =
    userId && !UUID.test(userId.trim())
      ? 'A user id looks like 3f2b…-…: copy it from the Testers list or the user’s e-mail.'
      : null;

  const act = async (e: FormEvent, what: 'export' | 'deletion') => {
    e.preventDefault();
    setMessage({});
    const id = userId.trim();
    if (!UUID.test(id))
      return setMessage({ error: 'Enter the user id of the person who wrote in.' });
    const res =
      what === 'export' ? await runExport(id) : await scheduleDeletion({ id, email: email.trim() });
    if ('error' in res && res.error)
      return setMessage({
        error: errorMessage(
          res.error,
          what === 'export' ? 'Could not start the export.' : 'Could not schedule the deletion.',
        ),
      });
    const done =
      what === 'export'
        ? 'Export started: the user gets the link by e-mail.'
        : 'Deletion scheduled: the user is signed out and can cancel by signing in within 7 days.';
    setMessage({ success: done });
    status(done);
  };

  return (
    <div className="stack">
      <section className="panel" aria-labelledby="privacy-run">
        <h2 id="privacy-run">For a user who asked by e-mail</h2>
        <form
          className="form"
          onSubmit={(e) => act(e, 'export')}
          aria-label="Privacy request for a user"
        >
          <Field label="User id" error={idError}>
            <input value={userId} onChange={(e) => setUserId(e.target.value)} autoComplete="off" />
          </Field>
          <Field label="Their e-mail (to confirm a deletion)" optional>
            <input
              type="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              autoComplete="off"
            />
          </Field>
          <FormMessage error={message.error} success={message.success} />
          <div className="form__actions">
            <button type="submit" className="btn btn--primary" disabled={exporting}>
              Run a data export
            </button>
            <button
              type="button"
              className="btn btn--danger"
              disabled={deleting || !email.trim()}
              onClick={(e) => act(e, 'deletion')}
            >
              Schedule account deletion
            </button>
          </div>
        </form>
      </section>
      {isLoading ? <Loading label="Loading privacy requests…" /> : null}
      {error ? (
        <FormMessage error={errorMessage(error, 'Could not load privacy requests.')} />
      ) : null}
      {data ? (
        <>
          <section className="panel" aria-labelledby="privacy-deletions">
            <h2 id="privacy-deletions">Account deletions</h2>
            {data.deletions.length === 0 ? (
              <p className="muted">None in the last 30 days.</p>
            ) : null}
            {data.deletions.length ? (
              <Table
                caption="Account deletions"
                columns={['User', 'Status', 'Asked', 'Erased on', 'Done', 'By']}
              >
                {data.deletions.map((d) => (
                  <tr key={d.id}>
                    <td>{d.email ?? `#${shortId(d.user_id)}`}</td>
                    <td>{d.status}</td>
                    <td>{formatDate(d.requested_at)}</td>
                    <td>
                      {d.status === 'cancelled' ? '—' : formatDate(d.completed_at ?? d.due_at)}
                    </td>
                    <td>
                      {d.services_done.length ? `${d.services_done.length} of 6 services` : '—'}
                    </td>
                    <td>{d.requested_by_admin ? 'Admin' : 'User'}</td>
                  </tr>
                ))}
              </Table>
            ) : null}
          </section>
          <section className="panel" aria-labelledby="privacy-exports">
            <h2 id="privacy-exports">Data exports</h2>
            {data.exports.length === 0 ? <p className="muted">None in the last 30 days.</p> : null}
            {data.exports.length ? (
              <Table
                caption="Data exports"
                columns={['User', 'Status', 'Progress', 'Asked', 'Link expires', 'By']}
              >
                {data.exports.map((x) => (
                  <tr key={x.id}>
                    <td>{x.email ?? `#${shortId(x.user_id)}`}</td>
                    <td>{x.status}</td>
                    <td>{x.progress}%</td>
                    <td>{formatDate(x.requested_at)}</td>
                    <td>{x.expires_at ? formatDate(x.expires_at) : '—'}</td>
                    <td>{x.requested_by_admin ? 'Admin' : 'User'}</td>
                  </tr>
                ))}
              </Table>
            ) : null}
          </section>
        </>
      ) : null}
    </div>
  );
}
