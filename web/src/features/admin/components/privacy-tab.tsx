import { useRef, useState } from 'react';
import { z } from 'zod';
import { FormMessage } from '../../../components/field';
import {
  SchemaForm,
  SubmitButton,
  TextField,
  useSchemaForm,
  type FormResult,
} from '../../../components/schema-form';
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
import { buttonClass } from '../../../components/button';
import panel from '../../../components/panel.module.css';
import pageStyles from '../../../components/page.module.css';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The form's schema: a user id (a uuid) and, for a deletion, their e-mail as typed. */
const requestSchema = z
  .object({ user_id: z.string(), email: z.string() })
  .superRefine((v, ctx) => {
    const id = v.user_id.trim();
    if (UUID.test(id)) return;
    ctx.addIssue({
      code: 'custom',
      path: ['user_id'],
      message: id
        ? 'A user id looks like 3f2b…-…: copy it from the Testers list or the user’s e-mail.'
        : 'Enter the user id of the person who wrote in.',
    });
  })
  .transform((v) => ({ id: v.user_id.trim(), email: v.email.trim() }));

/**
 * Admin: "Privacy". Data exports and account deletions in progress (and the last month's), and
 * running one for a user who asked by e-mail (both are written to the audit log).
 */
export function PrivacyTab() {
  const { data, error, isLoading } = useGetAdminPrivacyQuery(undefined, { pollingInterval: 5000 });
  const [runExport] = useAdminRunExportMutation();
  const [scheduleDeletion] = useAdminScheduleDeletionMutation();
  const form = useSchemaForm(requestSchema, { user_id: '', email: '' });
  const email = form.watch('email');
  // Which button sent the form (Enter in a field is "Run a data export").
  const action = useRef<'export' | 'deletion'>('export');
  const [message, setMessage] = useState<FormResult>({});
  const { status } = useNotify();

  const act = async ({ id, email }: z.output<typeof requestSchema>) => {
    const what = action.current;
    action.current = 'export';
    const res = what === 'export' ? await runExport(id) : await scheduleDeletion({ id, email });
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
    <div className={pageStyles.stack}>
      <section className={panel.panel} aria-labelledby="privacy-run">
        <h2 id="privacy-run">For a user who asked by e-mail</h2>
        <SchemaForm
          form={form}
          onValid={act}
          onAttempt={() => setMessage({})}
          className="form"
          aria-label="Privacy request for a user"
        >
          <TextField name="user_id" label="User id" autoComplete="off" />
          <TextField
            name="email"
            label="Their e-mail (to confirm a deletion)"
            optional
            type="email"
            autoComplete="off"
          />
          <FormMessage error={message.error} success={message.success} />
          <div className="form__actions">
            <SubmitButton onClick={() => (action.current = 'export')}>
              Run a data export
            </SubmitButton>
            <SubmitButton
              className={buttonClass('danger')}
              disabled={!email.trim()}
              onClick={() => (action.current = 'deletion')}
            >
              Schedule account deletion
            </SubmitButton>
          </div>
        </SchemaForm>
      </section>
      {isLoading ? <Loading label="Loading privacy requests…" /> : null}
      {error ? (
        <FormMessage error={errorMessage(error, 'Could not load privacy requests.')} />
      ) : null}
      {data ? (
        <>
          <section className={panel.panel} aria-labelledby="privacy-deletions">
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
          <section className={panel.panel} aria-labelledby="privacy-exports">
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
