import { useState } from 'react';
import { useController, useFormContext, useFormState } from 'react-hook-form';
import {
  webhookEndpointBodySchema,
  type WebhookEndpointBody,
  type WebhookEndpointView,
} from '@htm/contracts/reports';
import { Loading } from '../../../components/loading';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import {
  useAddWebhookEndpointMutation,
  useListWebhookEndpointsQuery,
  useRedeliverWebhookMutation,
  useRemoveWebhookEndpointMutation,
  useTestWebhookMutation,
  useWebhookDeliveriesQuery,
} from '../api/report';
import {
  errorText,
  SchemaForm,
  SubmitButton,
  useSchemaForm,
} from '../../../components/schema-form';
import styles from '../../../components/table.module.css';
import css from './webhooks-settings.module.css';
import { buttonClass } from '../../../components/button';
import notice from '../../../components/notice.module.css';
import jobCard from '../../../components/job-card.module.css';

const STATUS_LABEL = { pending: 'Retrying', delivered: 'Delivered', failed: 'Failed' } as const;

function Deliveries({ endpoint }: { endpoint: WebhookEndpointView }) {
  const {
    data = [],
    isLoading,
    refetch,
  } = useWebhookDeliveriesQuery(endpoint.id, { pollingInterval: 5000 });
  const [redeliver] = useRedeliverWebhookMutation();
  const { toast, status } = useNotify();
  const again = async (deliveryId: string) => {
    const res = await redeliver({ endpointId: endpoint.id, deliveryId });
    if ('error' in res && res.error) toast(errorMessage(res.error, 'Redeliver failed.'));
    else status('Sent again with the same webhook-id.');
  };
  if (isLoading) return <Loading label="Loading deliveries…" />;
  if (!data.length) return <p className="muted">No deliveries yet.</p>;
  return (
    <div className={styles['table-wrap']}>
      <table className={styles.table}>
        <caption className="sr-only">Deliveries to {endpoint.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data.map((d) => (
            <tr key={d.id}>
              <td className="mono">{d.event}</td>
              <td>{STATUS_LABEL[d.status]}</td>
              <td>{d.attempts}</td>
              <td title={d.last_error ?? undefined}>
                {d.last_response_code ?? (d.last_error ? 'no answer' : '—')}
              </td>
              <td>{d.next_attempt_at ? formatDate(d.next_attempt_at) : '—'}</td>
              <td>
                <button
                  type="button"
                  className={buttonClass('ghost', 'sm')}
                  onClick={() => again(d.id).then(() => refetch())}
                >
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The endpoint's address with Add beside it; its error (the schema's or the server's) under both. */
function EndpointUrlField() {
  const {
    field: { ref: attach, value, onChange, onBlur },
  } = useController<WebhookEndpointBody, 'url'>({ name: 'url' });
  const { errors } = useFormState<WebhookEndpointBody>({ name: 'url' });
  const { clearErrors } = useFormContext<WebhookEndpointBody>();
  const error = errorText(errors, 'url');
  return (
    <>
      <label htmlFor="webhook-url">Endpoint URL</label>
      <div className={css.row}>
        <input
          id="webhook-url"
          ref={attach}
          name="url"
          type="url"
          inputMode="url"
          placeholder="https://example.com/webhooks"
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'webhook-url-error' : undefined}
          onChange={(e) => {
            onChange(e.target.value);
            if (error) clearErrors('url');
          }}
          onBlur={onBlur}
        />
        <SubmitButton className={buttonClass('primary', 'sm')} busyLabel="Adding…">
          Add endpoint
        </SubmitButton>
      </div>
      {error ? (
        <p id="webhook-url-error" className="field__error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

/**
 * The poster's webhook endpoints: add one (its signing secret shown once), send a test, see the
 * deliveries with Redeliver, remove. Payloads are signed as Standard Webhooks says.
 */
export function WebhooksSettings() {
  const { data: endpoints = [], isLoading } = useListWebhookEndpointsQuery();
  const [add] = useAddWebhookEndpointMutation();
  const [remove] = useRemoveWebhookEndpointMutation();
  const [test] = useTestWebhookMutation();
  const form = useSchemaForm(webhookEndpointBodySchema, { url: '' });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const { toast, status } = useNotify();

  const submit = async (body: WebhookEndpointBody) => {
    const res = await add({ url: body.url });
    if ('data' in res && res.data) {
      setSecret({ url: res.data.url, secret: res.data.secret });
      form.reset({ url: '' });
    } else
      form.setError('url', {
        type: 'server',
        message: errorMessage(
          'error' in res ? res.error : null,
          'The endpoint could not be added.',
        ),
      });
  };
  const sendTest = async (id: string) => {
    const res = await test(id);
    if ('error' in res && res.error) toast(errorMessage(res.error, 'The test could not be sent.'));
    else {
      status('Test webhook queued.');
      setOpen(id);
    }
  };
  const drop = async (id: string) => {
    const res = await remove(id);
    if ('error' in res && res.error)
      toast(errorMessage(res.error, 'The endpoint could not be removed.'));
    else status('Endpoint removed.');
  };

  return (
    <section className={css.webhooks} aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className="muted">
        We POST job.paid, job.claimed, job.submitted, job.revision_requested and job.completed to
        your endpoint, signed as{' '}
        <a href="https://www.standardwebhooks.com/" target="_blank" rel="noreferrer">
          Standard Webhooks
        </a>{' '}
        says. Failed deliveries are retried for a day.
      </p>
      <SchemaForm
        form={form}
        onValid={submit}
        className={`form ${css.add}`}
        aria-label="Add a webhook endpoint"
      >
        <EndpointUrlField />
      </SchemaForm>
      {secret ? (
        <div className={notice.notice} role="status">
          <p>
            Signing secret for <span className="mono">{secret.url}</span>. Copy it now: it is not
            shown again.
          </p>
          <input
            className="mono"
            readOnly
            value={secret.secret}
            aria-label="Signing secret"
            onFocus={(e) => e.currentTarget.select()}
          />
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            onClick={() => setSecret(null)}
          >
            I have copied it
          </button>
        </div>
      ) : null}
      {isLoading ? <Loading label="Loading endpoints…" /> : null}
      <ul className={css.list}>
        {endpoints.map((e) => (
          <li key={e.id} className={jobCard['job-card']}>
            <div className={jobCard['job-card__main']}>
              <p className="mono">{e.url}</p>
              <p className="muted">
                Added {formatDate(e.created_at)}
                {e.disabled_at
                  ? ` · disabled ${formatDate(e.disabled_at)} after 3 days of failures`
                  : ''}
              </p>
              <div className={css.row}>
                <button
                  type="button"
                  className={buttonClass('secondary', 'sm')}
                  onClick={() => sendTest(e.id)}
                >
                  Send test
                </button>
                <button
                  type="button"
                  className={buttonClass('ghost', 'sm')}
                  onClick={() => setOpen(open === e.id ? null : e.id)}
                  aria-expanded={open === e.id}
                >
                  {open === e.id ? 'Hide deliveries' : 'Deliveries'}
                </button>
                <button
                  type="button"
                  className={buttonClass('ghost', 'sm')}
                  onClick={() => drop(e.id)}
                >
                  Remove
                </button>
              </div>
              {open === e.id ? <Deliveries endpoint={e} /> : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
