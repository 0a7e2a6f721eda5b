import {
  githubTrackerBodySchema,
  jiraTrackerBodySchema,
  type GithubTrackerBody,
  type JiraTrackerBody,
} from '@htm/contracts/reports';
import {
  SchemaForm,
  showServerErrors,
  SubmitButton,
  TextField,
  useSchemaForm,
} from '../../../components/schema-form';
import { errorMessage, serverFieldErrors } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import {
  useGetTrackersQuery,
  useRemoveTrackerMutation,
  useSaveGithubTrackerMutation,
  useSaveJiraTrackerMutation,
} from '../api/report';
import css from './trackers-settings.module.css';
import { buttonClass } from '../../../components/button';

const noGithub: GithubTrackerBody = { token: '', repository: '' };
const noJira: JiraTrackerBody = { site_url: '', email: '', api_token: '', project_key: '' };

/**
 * Connecting checks the token and the project with the tracker: what failed is shown under the
 * field to change (the server names it), anything else in a toast.
 */
function useRefused() {
  const { toast } = useNotify();
  return <T extends Record<string, string>>(
    setError: Parameters<typeof showServerErrors<T>>[0],
    fields: T,
    error: unknown,
    fallback: string,
  ) => {
    const byField = serverFieldErrors(error);
    const rest = showServerErrors(setError, byField, (k) => k in fields);
    if (Object.keys(rest).length === Object.keys(byField).length)
      toast(errorMessage(error, fallback));
  };
}

/** GitHub and Jira for "Send to ...": tokens go to the server once and never come back. */
export function TrackersSettings() {
  return (
    <section className={css.trackers} aria-labelledby="trackers-title">
      <h2 id="trackers-title">Issue trackers</h2>
      <p className="muted">
        Send findings to GitHub or Jira from your results. Tokens are stored encrypted and never
        shown again.
      </p>
      <div className={css.forms}>
        <GithubForm />
        <JiraForm />
      </div>
    </section>
  );
}

/** POST /api/trackers/github (githubTrackerBodySchema): a repository and a fine-grained token. */
function GithubForm() {
  const { data } = useGetTrackersQuery();
  const [save] = useSaveGithubTrackerMutation();
  const [remove] = useRemoveTrackerMutation();
  const { status } = useNotify();
  const refused = useRefused();
  const form = useSchemaForm(githubTrackerBodySchema, noGithub);

  const submit = async (body: GithubTrackerBody) => {
    const res = await save(body);
    if ('error' in res && res.error)
      refused(form.setError, noGithub, res.error, 'GitHub could not be connected.');
    else {
      form.reset(noGithub);
      status('GitHub connected.');
    }
  };

  return (
    <SchemaForm form={form} onValid={submit} className={`form ${css.tracker}`} aria-label="GitHub">
      <h3>GitHub</h3>
      {data?.github ? (
        <p>
          Connected to <span className="mono">{data.github.repository}</span>{' '}
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            onClick={() => remove('github')}
          >
            Remove
          </button>
        </p>
      ) : null}
      <TextField name="repository" label="Repository (owner/name)" autoComplete="off" />
      <TextField
        name="token"
        label="Fine-grained token (Issues: read and write)"
        type="password"
        autoComplete="off"
      />
      <SubmitButton className={buttonClass('secondary', 'sm')} busyLabel="Checking…">
        {data?.github ? 'Replace' : 'Connect GitHub'}
      </SubmitButton>
    </SchemaForm>
  );
}

/** POST /api/trackers/jira (jiraTrackerBodySchema): the site, an account, its API token, a project. */
function JiraForm() {
  const { data } = useGetTrackersQuery();
  const [save] = useSaveJiraTrackerMutation();
  const [remove] = useRemoveTrackerMutation();
  const { status } = useNotify();
  const refused = useRefused();
  const form = useSchemaForm(jiraTrackerBodySchema, noJira);

  const submit = async (body: JiraTrackerBody) => {
    const res = await save(body);
    if ('error' in res && res.error)
      refused(form.setError, noJira, res.error, 'Jira could not be connected.');
    else {
      form.reset(noJira);
      status('Jira connected.');
    }
  };

  return (
    <SchemaForm form={form} onValid={submit} className={`form ${css.tracker}`} aria-label="Jira">
      <h3>Jira</h3>
      {data?.jira ? (
        <p>
          Connected to <span className="mono">{data.jira.project_key}</span> on {data.jira.site_url}{' '}
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            onClick={() => remove('jira')}
          >
            Remove
          </button>
        </p>
      ) : null}
      <TextField name="site_url" label="Site URL" type="url" autoComplete="off" />
      <TextField name="email" label="Account e-mail" type="email" autoComplete="off" />
      <TextField name="api_token" label="API token" type="password" autoComplete="off" />
      <TextField name="project_key" label="Project key" autoComplete="off" />
      <SubmitButton className={buttonClass('secondary', 'sm')} busyLabel="Checking…">
        {data?.jira ? 'Replace' : 'Connect Jira'}
      </SubmitButton>
    </SchemaForm>
  );
}
