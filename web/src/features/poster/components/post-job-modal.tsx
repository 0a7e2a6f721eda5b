import { useState, type FormEvent } from 'react';
import { ASSISTIVE_TECH, ASSISTIVE_TECH_LABELS, type AssistiveTech } from '@htm/contracts/identity';
import {
  GEO_RULES,
  JOB_LIMITS,
  JOB_MESSAGES,
  createJobBodySchema,
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
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { browser } from '../../../lib/browser';
import { DRAFT_KEYS, hasText, useDraft } from '../../../lib/drafts';
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
import { issuesByField } from '../../../lib/zod-errors';
import { useCreateJobMutation } from '../api/create-job';
import { Form } from '../../../components/form';
import type { FavouriteView } from '@htm/contracts/favourites';

export const POSTING_FAILED = 'Posting failed. Please retry once; if it fails again, re-login.';

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
  const [v, setV, clearDraft] = useDraft<FormState>(DRAFT_KEYS.postJob, initial, typedIn);
  const dirty = typedIn(v);
  const { requestClose, prompt } = useDiscardGuard(dirty, onClose, clearDraft);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [createJob, { isLoading }] = useCreateJobMutation();
  const { toast, status } = useNotify();

  const setReq = (i: number, text: string) =>
    setV({ ...v, requirements: v.requirements.map((r, j) => (j === i ? text : r)) });
  const addReq = () =>
    v.requirements.length < JOB_LIMITS.requirementsMax &&
    setV({ ...v, requirements: [...v.requirements, ''] });
  const removeReq = (i: number) =>
    v.requirements.length > 1 &&
    setV({ ...v, requirements: v.requirements.filter((_, j) => j !== i) });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    const parsed = createJobBodySchema.safeParse({
      ...v,
      budget: 1,
      expected_completion_hours: v.expected_completion_hours || undefined,
      assistive_tech: v.assistive_tech || null,
      testers: v.testers ?? PACK_SIZE.default,
      // Only a favourite still in the list (a draft may name one removed since).
      invite_tester_id: favourites.some((f) => f.tester_id === v.invite_tester_id)
        ? v.invite_tester_id
        : undefined,
    });
    if (!parsed.success) {
      setErrors(issuesByField(parsed.error.issues));
      return;
    }
    setErrors({});
    track('post_job_attempt');
    const res = await createJob({ ...parsed.data, budget: 1 });
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
      // A 400 naming fields of this form shows each message under its field, as the
      // browser check does; anything else stays in the message at the bottom.
      const byField = st === 400 ? serverFieldErrors(res.error) : {};
      const shown = Object.keys(byField).filter((k) => isFormField(k, v.requirements.length));
      if (shown.length) {
        setErrors(Object.fromEntries(shown.map((k) => [k, byField[k]])));
        const rest = Object.keys(byField).filter((k) => !shown.includes(k));
        if (rest.length)
          setFormError(`Failed to create job: ${rest.map((k) => byField[k]).join('; ')}`);
        return;
      }
      setFormError(`Failed to create job: ${errorMessage(res.error, 'Unknown error')}`);
      return;
    }
    track('post_job_success');
    clearDraft();
    onPosted?.();
    const answer = res.data;
    if (answer?.checkout_url) {
      status('Job created. Redirecting to checkout…');
      browser.assign(answer.checkout_url);
      return;
    }
    toast(
      `Job saved, but checkout could not start${answer?.payment_error ? `: ${answer.payment_error}` : ''}. Use 'Pay now' on the job to try again.`,
      'info',
    );
    onClose();
  };

  const count = v.requirements.length;
  // Drafts saved before the tester count existed have none.
  const testers = v.testers ?? PACK_SIZE.default;
  const price = formatPrice(packPriceCents(testers));
  return (
    <Modal title="Post New Job" onClose={requestClose} size="lg" banner={prompt}>
      <Form className="form" onSubmit={submit} noValidate aria-label="Post New Job">
        <p className="muted">
          Every test costs {formatPrice(PRICE_PER_TEST_CENTS)} and is paid at checkout. Testers earn{' '}
          {formatUsd(TESTER_SHARE_CENTS)}.
        </p>
        <Field label="Job title" error={errors.title}>
          <input
            data-autofocus
            value={v.title}
            maxLength={JOB_LIMITS.titleMax}
            onChange={(e) => setV({ ...v, title: e.target.value })}
          />
        </Field>
        <Field label="Website URL" error={errors.url}>
          <input
            type="url"
            inputMode="url"
            placeholder="https://"
            value={v.url}
            onChange={(e) => setV({ ...v, url: e.target.value })}
          />
        </Field>
        <Field label="What to test" error={errors.what_to_test}>
          <textarea
            rows={3}
            value={v.what_to_test}
            onChange={(e) => setV({ ...v, what_to_test: e.target.value })}
          />
        </Field>
        <fieldset className="reqs">
          <legend>
            Things to check{' '}
            <span className="muted">
              ({count}/{JOB_LIMITS.requirementsMax})
            </span>
          </legend>
          {v.requirements.map((r, i) => (
            <div className="reqs__row" key={i}>
              <Field
                label={`Thing to check ${i + 1}`}
                error={errors[`requirements.${i}`]}
                hint={
                  <span className={r.length > JOB_LIMITS.requirementMax ? 'over' : undefined}>
                    {r.length}/{JOB_LIMITS.requirementMax}
                  </span>
                }
              >
                <input value={r} onChange={(e) => setReq(i, e.target.value)} />
              </Field>
              <button
                type="button"
                className="btn btn--ghost btn--sm"
                onClick={() => removeReq(i)}
                disabled={count <= 1}
                aria-label={`Remove thing to check ${i + 1}`}
              >
                Remove
              </button>
            </div>
          ))}
          {errors.requirements &&
          !Object.keys(errors).some((k) => k.startsWith('requirements.')) ? (
            <div className="field__error" role="alert">
              {errors.requirements}
            </div>
          ) : null}
          <button
            type="button"
            className="btn btn--secondary btn--sm"
            onClick={addReq}
            disabled={count >= JOB_LIMITS.requirementsMax}
          >
            + Add another
          </button>
        </fieldset>
        <div className="grid-2">
          <Field label="Who may test" error={errors.geo_rule}>
            <select
              value={v.geo_rule}
              onChange={(e) => setV({ ...v, geo_rule: e.target.value as GeoRule })}
            >
              {GEO_RULES.map((g) => (
                <option key={g} value={g}>
                  {GEO_LABELS[g]}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Expected completion (hours)" error={errors.expected_completion_hours}>
            <input
              type="number"
              min={JOB_LIMITS.hoursMin}
              max={JOB_LIMITS.hoursMax}
              value={v.expected_completion_hours}
              onChange={(e) => setV({ ...v, expected_completion_hours: e.target.value })}
            />
          </Field>
        </div>
        <label className="switch">
          <input
            type="checkbox"
            checked={v.fresh_eyes}
            onChange={(e) => setV({ ...v, fresh_eyes: e.target.checked })}
          />
          <span>{JOB_MESSAGES.freshEyesLabel}</span>
        </label>
        <Field label="Assistive technology" error={errors.assistive_tech}>
          <select
            value={v.assistive_tech}
            onChange={(e) => setV({ ...v, assistive_tech: e.target.value as AssistiveTech | '' })}
          >
            <option value="">Any tester</option>
            {ASSISTIVE_TECH.map((t) => (
              <option key={t} value={t}>
                Tested by someone who uses {ASSISTIVE_TECH_LABELS[t]}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="How many testers"
          error={errors.testers}
          hint={
            <span data-testid="pack-price">
              {testers === 1
                ? `1 tester: ${price}`
                : `${testers} testers × ${formatPrice(PRICE_PER_TEST_CENTS)} = ${price}. Each tester is a different person; you see what they agree on.`}
            </span>
          }
        >
          <select value={testers} onChange={(e) => setV({ ...v, testers: Number(e.target.value) })}>
            {Array.from(
              { length: PACK_SIZE.max - PACK_SIZE.min + 1 },
              (_, i) => PACK_SIZE.min + i,
            ).map((n) => (
              <option key={n} value={n}>
                {n === 1 ? '1 tester' : `${n} testers`}
              </option>
            ))}
          </select>
        </Field>
        {favourites.length > 0 ? (
          <Field
            label="Invite a favourite tester first"
            error={errors.invite_tester_id}
            hint="The job is held for them for a while after you pay, then it opens to every tester."
          >
            <select
              value={v.invite_tester_id ?? ''}
              onChange={(e) => setV({ ...v, invite_tester_id: e.target.value })}
            >
              <option value="">No one: open to every tester</option>
              {favourites.map((f) => (
                <option key={f.tester_id} value={f.tester_id}>
                  {f.name || 'A tester'}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        <FormMessage error={formError} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={requestClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={isLoading}>
            {isLoading ? 'Posting…' : `Post Job & Pay ${price}`}
          </button>
        </div>
      </Form>
    </Modal>
  );
}
