import { useState, type FormEvent } from 'react';
import { githubTrackerBodySchema, jiraTrackerBodySchema } from '@htm/contracts/reports';
import { BusyButton } from '../../../components/busy-button';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import {
  useGetTrackersQuery,
  useRemoveTrackerMutation,
  useSaveGithubTrackerMutation,
  useSaveJiraTrackerMutation,
} from '../api/report';
import { Form } from '../../../components/form';

const firstErrors = (issues: Array<{ path: PropertyKey[]; message: string }>) =>
  Object.fromEntries(issues.map((i) => [String(i.path[0]), i.message]));

/** GitHub and Jira for "Send to ...": tokens go to the server once and never come back. */
export function TrackersSettings() {
  const { data } = useGetTrackersQuery();
  const [saveGithub, { isLoading: savingGh }] = useSaveGithubTrackerMutation();
  const [saveJira, { isLoading: savingJira }] = useSaveJiraTrackerMutation();
  const [remove] = useRemoveTrackerMutation();
  const { status, toast } = useNotify();
  const [gh, setGh] = useState({ token: '', repository: '' });
  const [jira, setJira] = useState({ site_url: '', email: '', api_token: '', project_key: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});

  /**
   * Connecting checks the token and the project with the tracker: what failed is shown under the
   * field to change (the server names it), anything else in a toast.
   */
  const refused = (error: unknown, fallback: string) => {
    const fields = (error as { data?: { errors?: Record<string, string[]> } }).data?.errors;
    if (fields && Object.keys(fields).length)
      setErrors(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v[0]])));
    else toast(errorMessage(error, fallback));
  };
  const submitGithub = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = githubTrackerBodySchema.safeParse(gh);
    if (!parsed.success) return setErrors(firstErrors(parsed.error.issues));
    setErrors({});
    const res = await saveGithub(parsed.data);
    if ('error' in res && res.error) refused(res.error, 'GitHub could not be connected.');
    else {
      setGh({ token: '', repository: '' });
      status('GitHub connected.');
    }
  };
  const submitJira = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = jiraTrackerBodySchema.safeParse(jira);
    if (!parsed.success) return setErrors(firstErrors(parsed.error.issues));
    setErrors({});
    const res = await saveJira(parsed.data);
    if ('error' in res && res.error) refused(res.error, 'Jira could not be connected.');
    else {
      setJira({ site_url: '', email: '', api_token: '', project_key: '' });
      status('Jira connected.');
    }
  };
  const field = (
    id: string,
    label: string,
    value: string,
    onChange: (v: string) => void,
    type = 'text',
  ) => (
    <div className={`field${errors[id] ? ' field--error' : ''}`}>
      <label htmlFor={`tracker-${id}`}>{label}</label>
      <input
        id={`tracker-${id}`}
        type={type}
        value={value}
        autoComplete="off"
        aria-invalid={errors[id] ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {errors[id] ? <div className="field__error">{errors[id]}</div> : null}
    </div>
  );

  return (
    <section className="webhooks" aria-labelledby="trackers-title">
      <h2 id="trackers-title">Issue trackers</h2>
      <p className="muted">
        Send findings to GitHub or Jira from your results. Tokens are stored encrypted and never
        shown again.
      </p>
      <div className="trackers">
        <Form className="form tracker-form" onSubmit={submitGithub} noValidate aria-label="GitHub">
          <h3>GitHub</h3>
          {data?.github ? (
            <p>
              Connected to <span className="mono">{data.github.repository}</span>{' '}
              <button
                type="button"
                className="btn btn--ghost btn--sm"
                onClick={() => remove('github')}
              >
                Remove
              </button>
            </p>
          ) : null}
          {field('repository', 'Repository (owner/name)', gh.repository, (v) =>
            setGh({ ...gh, repository: v }),
          )}
          {field(
            'token',
            'Fine-grained token (Issues: read and write)',
            gh.token,
            (v) => setGh({ ...gh, token: v }),
            'password',
          )}
          <BusyButton
            type="submit"
            className="btn btn--secondary btn--sm"
            busy={savingGh}
            busyLabel="Checking…"
          >
            {data?.github ? 'Replace' : 'Connect GitHub'}
          </BusyButton>
        </Form>
        <Form className="form tracker-form" onSubmit={submitJira} noValidate aria-label="Jira">
          <h3>Jira</h3>
          {data?.jira ? (
            <p>
              Connected to <span className="mono">{data.jira.project_key}</span> on{' '}
              {data.jira.site_url}{' '}
              <button
                type="button"
                className="btn btn--ghost btn--sm"
                onClick={() => remove('jira')}
              >
                Remove
              </button>
            </p>
          ) : null}
          {field(
            'site_url',
            'Site URL',
            jira.site_url,
            (v) => setJira({ ...jira, site_url: v }),
            'url',
          )}
          {field(
            'email',
            'Account e-mail',
            jira.email,
            (v) => setJira({ ...jira, email: v }),
            'email',
          )}
          {field(
            'api_token',
            'API token',
            jira.api_token,
            (v) => setJira({ ...jira, api_token: v }),
            'password',
          )}
          {field('project_key', 'Project key', jira.project_key, (v) =>
            setJira({ ...jira, project_key: v }),
          )}
          <BusyButton
            type="submit"
            className="btn btn--secondary btn--sm"
            busy={savingJira}
            busyLabel="Checking…"
          >
            {data?.jira ? 'Replace' : 'Connect Jira'}
          </BusyButton>
        </Form>
      </div>
    </section>
  );
}
