import { useState } from 'react';
import { ASSISTIVE_TECH, ASSISTIVE_TECH_LABELS, type AssistiveTech } from '@htm/contracts/identity';
import {
  GEO_RULES,
  JOB_LIMITS,
  JOB_MESSAGES,
  createJobBodySchema,
  type CreateJobBody,
  type GeoRule,
} from '@htm/contracts/jobs';
import {
  DEFAULT_GEO_RULE,
  PACK_SIZE,
  PRICE_PER_TEST_CENTS,
  TESTER_SHARE_CENTS,
  formatPrice,
  formatUsd,
  packPriceCents,
} from '@htm/contracts/marketplace';
import { useDiscardGuard } from '../../../components/discard-guard';
import { FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { browser } from '../../../lib/browser';
import { DRAFT_KEYS, hasText } from '../../../lib/drafts';
import {
  CANT_REACH,
  errorMessage,
  errorStatus,
  isUnreachable,
  logRequestFailure,
  serverFieldErrors,
} from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import { track } from '../../../lib/telemetry';
import { useCreateJobMutation } from '../api/create-job';
import { paymentProblem, SavedNotPaid } from './pay-now';
import {
  Checkbox,
  formSchema,
  ListField,
  SchemaForm,
  Select,
  showServerErrors,
  SubmitButton,
  TextArea,
  TextField,
  useSchemaForm,
} from '../../../components/schema-form';
import type { FavouriteView } from '@htm/contracts/favourites';
import { buttonClass } from '../../../components/button';

export const POSTING_FAILED = 'Posting failed. Please retry once; if it fails again, re-login.';
/** A gateway's 502/503/504: the job may have been saved before the answer was lost. */
export const POSTING_UNANSWERED =
  'HumanTest did not answer in time, so your job may have been saved. Look under Your jobs before posting it again: if it is there unpaid, pay it with Pay now on its card.';

const GEO_LABELS: Record<GeoRule, string> = {
  us_pr: 'Testers in the US and Puerto Rico',
  us_pr_ca: 'Testers in the US, Puerto Rico and Canada',
  global_beta: 'Testers anywhere (global beta)',
};

interface FormState {
  title: string;
  url: string;
  what_to_test: string;
  requirements: string[];
  geo_rule: GeoRule;
  expected_completion_hours: string;
  fresh_eyes: boolean;
  /** The tester must attach a screen recording with their voice (drafts from before: off). */
  recording_required?: boolean;
  /** '' = anyone */
  assistive_tech: AssistiveTech | '';
  /** How many testers (a pack: one checkout for all). */
  testers: number;
  /** A favourite tester to hold the job for first ('' = none; drafts from before have none). */
  invite_tester_id?: string;
}

const initial: FormState = {
  title: '',
  url: '',
  what_to_test: '',
  requirements: [''],
  geo_rule: DEFAULT_GEO_RULE,
  expected_completion_hours: '48',
  fresh_eyes: true,
  recording_required: false,
  assistive_tech: '',
  testers: PACK_SIZE.default,
  invite_tester_id: '',
};

const FORM_FIELDS = new Set([
  'title',
  'url',
  'what_to_test',
  'requirements',
  'geo_rule',
  'expected_completion_hours',
  'fresh_eyes',
  'recording_required',
  'assistive_tech',
  'testers',
  'invite_tester_id',
]);

/** The user typed something (the preset geo rule and hours do not count). */
const typedIn = (v: FormState) => hasText([v.title, v.url, v.what_to_test, v.requirements]);

/** True when the form shows an error for this server field key ('requirements.2' too). */
function isFormField(key: string, requirementCount: number): boolean {
  const m = /^requirements\.(\d+)$/.exec(key);
  return m ? Number(m[1]) < requirementCount : FORM_FIELDS.has(key);
}

/**
 * The form's schema: the API's job body, from what the fields hold (budget is fixed at $1,
 * blank hours and "Any tester" are not sent, and a favourite is sent only while still listed).
 */
function postJobSchema(favourites: FavouriteView[]) {
  return formSchema<FormState, CreateJobBody>(
    (v) => ({
      ...v,
      budget: 1,
      expected_completion_hours: v.expected_completion_hours || undefined,
      assistive_tech: v.assistive_tech || null,
      testers: v.testers ?? PACK_SIZE.default,
      // Only a favourite still in the list (a draft may name one removed since).
      invite_tester_id: favourites.some((f) => f.tester_id === v.invite_tester_id)
        ? v.invite_tester_id
        : undefined,
    }),
    createJobBodySchema,
  );
}

/**
 * 'Post New Job': on success the browser goes to the checkout page ($1). What is typed is kept
 * as a draft in sessionStorage (also what the landing page's job request leaves for a visitor
 * who signed in to continue); closing a form with text asks first.
 */
export function PostJobModal({
  onClose,
  onPosted,
  favourites = [],
}: {
  onClose: () => void;
  onPosted?: () => void;
  /** The poster's favourite testers: "Invite a favourite tester first" is shown when there are any. */
  favourites?: FavouriteView[];
}) {
  const form = useSchemaForm(postJobSchema(favourites), initial, {
    draft: { key: DRAFT_KEYS.postJob, hasContent: typedIn },
  });
  const v = form.watch();
  const dirty = typedIn(v);
  const { requestClose, prompt } = useDiscardGuard(dirty, onClose, form.discardDraft);
  const [formError, setFormError] = useState<string | null>(null);
  const [createJob] = useCreateJobMutation();
  const { status } = useNotify();
  /** The job saved without a checkout: the modal then says why and offers Pay now. */
  const [saved, setSaved] = useState<{ jobId: string; problem: string } | null>(null);

  const submit = async (body: CreateJobBody) => {
    track('post_job_attempt');
    const res = await createJob({ ...body, budget: 1 });
    if ('error' in res && res.error) {
      const st = errorStatus(res.error);
      track('post_job_failure', { status: String(st) });
      logRequestFailure('post_job', res.error);
      if (isUnreachable(res.error)) {
        setFormError(CANT_REACH);
        return;
      }
      if (st === 401) {
        setFormError(POSTING_FAILED);
        return;
      }
      if (st === 502 || st === 503 || st === 504) {
        setFormError(POSTING_UNANSWERED);
        return;
      }
      // A 400 naming fields of this form shows each message under its field, as the
      // browser check does; anything else stays in the message at the bottom.
      const byField = st === 400 ? serverFieldErrors(res.error) : {};
      const count = form.getValues('requirements').length;
      const rest = showServerErrors(form.setError, byField, (k) => isFormField(k, count));
      if (Object.keys(rest).length < Object.keys(byField).length) {
        if (Object.keys(rest).length)
          setFormError(`Failed to create job: ${Object.values(rest).join('; ')}`);
        return;
      }
      setFormError(`Failed to create job: ${errorMessage(res.error, 'Unknown error')}`);
      return;
    }
    track('post_job_success');
    form.discardDraft();
    onPosted?.();
    const answer = res.data;
    if (answer?.checkout_url) {
      status('Job created. Redirecting to checkout…');
      browser.assign(answer.checkout_url);
      return;
    }
    // Saved, but no checkout (payments not answering): say so here, where the poster looks.
    if (answer?.job) setSaved({ jobId: answer.job.id, problem: paymentProblem(res) ?? '' });
    else onClose();
  };

  const count = v.requirements.length;
  // Drafts saved before the tester count existed have none.
  const testers = v.testers ?? PACK_SIZE.default;
  const price = formatPrice(packPriceCents(testers));
  if (saved)
    return (
      <Modal title="Job saved, not paid yet" onClose={onClose}>
        <SavedNotPaid jobId={saved.jobId} problem={saved.problem} price={price} onClose={onClose} />
      </Modal>
    );
  return (
    <Modal title="Post New Job" onClose={requestClose} size="lg" banner={prompt}>
      <SchemaForm
        form={form}
        onValid={submit}
        className="form"
        aria-label="Post New Job"
        onAttempt={() => setFormError(null)}
      >
        <p className="muted">
          Every test costs {formatPrice(PRICE_PER_TEST_CENTS)} and is paid at checkout. Testers earn{' '}
          {formatUsd(TESTER_SHARE_CENTS)}.
        </p>
        <TextField name="title" label="Job title" data-autofocus maxLength={JOB_LIMITS.titleMax} />
        <TextField
          name="url"
          label="Website URL"
          type="url"
          inputMode="url"
          placeholder="https://"
        />
        <TextArea name="what_to_test" label="What to test" rows={3} />
        <fieldset className="reqs">
          <legend>
            Things to check{' '}
            <span className="muted">
              ({count}/{JOB_LIMITS.requirementsMax})
            </span>
          </legend>
          <ListField
            name="requirements"
            max={JOB_LIMITS.requirementsMax}
            addLabel="+ Add another"
            removeLabel={(i) => `Remove thing to check ${i + 1}`}
          >
            {(i, remove) => (
              <>
                <TextField
                  name={`requirements.${i}`}
                  label={`Thing to check ${i + 1}`}
                  hint={
                    <span
                      className={
                        (v.requirements[i]?.length ?? 0) > JOB_LIMITS.requirementMax
                          ? 'over'
                          : undefined
                      }
                    >
                      {v.requirements[i]?.length ?? 0}/{JOB_LIMITS.requirementMax}
                    </span>
                  }
                />
                {remove}
              </>
            )}
          </ListField>
        </fieldset>
        <div className="grid-2">
          <Select
            name="geo_rule"
            label="Who may test"
            options={GEO_RULES.map((g) => [g, GEO_LABELS[g]] as const)}
          />
          <TextField
            name="expected_completion_hours"
            label="Expected completion (hours)"
            type="number"
            min={JOB_LIMITS.hoursMin}
            max={JOB_LIMITS.hoursMax}
          />
        </div>
        <Checkbox name="fresh_eyes" label={JOB_MESSAGES.freshEyesLabel} />
        <Checkbox name="recording_required" label={JOB_MESSAGES.recordingRequiredLabel} />
        <Select
          name="assistive_tech"
          label="Assistive technology"
          options={[
            ['', 'Any tester'],
            ...ASSISTIVE_TECH.map(
              (t) => [t, `Tested by someone who uses ${ASSISTIVE_TECH_LABELS[t]}`] as const,
            ),
          ]}
        />
        <Select
          name="testers"
          label="How many testers"
          parse={Number}
          hint={
            <span data-testid="pack-price">
              {testers === 1
                ? `1 tester: ${price}`
                : `${testers} testers × ${formatPrice(PRICE_PER_TEST_CENTS)} = ${price}. Each tester is a different person; you see what they agree on.`}
            </span>
          }
          options={Array.from(
            { length: PACK_SIZE.max - PACK_SIZE.min + 1 },
            (_, i) => PACK_SIZE.min + i,
          ).map((n) => [n, n === 1 ? '1 tester' : `${n} testers`] as const)}
        />
        {favourites.length > 0 ? (
          <Select
            name="invite_tester_id"
            label="Invite a favourite tester first"
            hint="The job is held for them for a while after you pay, then it opens to every tester."
            options={[
              ['', 'No one: open to every tester'],
              ...favourites.map((f) => [f.tester_id, f.name || 'A tester'] as const),
            ]}
          />
        ) : null}
        <FormMessage error={formError} />
        <div className="form__actions">
          <button type="button" className={buttonClass('ghost')} onClick={requestClose}>
            Cancel
          </button>
          <SubmitButton busyLabel="Posting…">{`Post Job & Pay ${price}`}</SubmitButton>
        </div>
      </SchemaForm>
    </Modal>
  );
}
