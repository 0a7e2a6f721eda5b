import { useState, type FormEvent } from 'react';
import { initUserBodySchema } from '@htm/contracts/identity';
import { RULE_WORDS, WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { rememberedIntent } from '../../../lib/sign-in-intent';
import { Field, FormMessage } from '../../../components/field';
import { formErrorMessage } from '../../../lib/error-message';
import { issuesByField } from '../../../lib/zod-errors';
import { useInitUserMutation, type InitUserBody } from '../api/init-user';
import { Form } from '../../../components/form';

export interface RoleChoice {
  role: string;
  location: string;
  country: string;
}

/** A tester's location follows the country where it can (identity's rule): US is USA, PR is PR. */
export function locationForCountry(country: string): string | null {
  if (country === 'US') return 'USA';
  if (country === 'PR') return 'PR';
  return null;
}

/**
 * The location a tester is recorded with: it follows the country, and a tester in Canada is not
 * asked to pick a US market (the USA, where most jobs admitting Canada come from).
 */
export function testerLocation(country: string): string {
  if (!country) return '';
  return locationForCountry(country) ?? 'USA';
}

/** What is sent: a tester's location comes from the country (they are asked no location). */
export function effectiveChoice(v: RoleChoice): RoleChoice {
  return v.role === 'tester' ? { ...v, location: testerLocation(v.country) } : v;
}

/**
 * Role choice rules (spec 5, shared schema): role and location required; country for testers,
 * whose location follows it. Every field's error at once.
 */
export function validateRoleChoice(choice: RoleChoice): Record<string, string> {
  const v = effectiveChoice(choice);
  const parsed = initUserBodySchema.safeParse({
    type: v.role || undefined,
    location: v.location || undefined,
    country: v.role === 'tester' ? v.country || undefined : undefined,
  });
  const errors = parsed.success ? {} : issuesByField(parsed.error.issues);
  // The schema's tester rule runs only once the rest is valid: say it now too.
  if (v.role === 'tester' && !v.country && !errors.country)
    errors.country = 'Please choose a country';
  return errors;
}

/** 'Choose Your Role' for a signed-in user without a type (with a way out: Logout). */
export function ChooseRole({
  name,
  intent = rememberedIntent(),
  onDone,
  onLogout,
}: {
  name?: string;
  /** What the visitor set out to do ('Get Your Site Tested' = poster, Tester Login = tester): preselected. */
  intent?: 'poster' | 'tester' | null;
  onDone?: () => void;
  onLogout?: () => void;
}) {
  const [v, setV] = useState<RoleChoice>({ role: intent ?? '', location: '', country: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [initUser, { isLoading }] = useInitUserMutation();
  // Changing a field clears its error ('type' is the schema's name for the role).
  const change = (patch: Partial<RoleChoice>, field: string) => {
    setV({ ...v, ...patch });
    setErrors((e) => ({ ...e, [field]: '' }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const errs = validateRoleChoice(v);
    setErrors(errs);
    setFormError(null);
    if (Object.keys(errs).length) return;
    const chosen = effectiveChoice(v);
    const body: InitUserBody = {
      type: chosen.role as InitUserBody['type'],
      location: chosen.location as InitUserBody['location'],
    };
    if (chosen.role === 'tester') body.country = chosen.country as InitUserBody['country'];
    const res = await initUser(body);
    if ('error' in res && res.error)
      setFormError(formErrorMessage(res.error, 'Initialization failed'));
    else onDone?.();
  };

  return (
    <main className="auth-page" id="main">
      <Form className="auth-card" onSubmit={submit} noValidate>
        <h1>Choose Your Role</h1>
        <p className="muted">{name ? `Welcome, ${name}. ` : ''}How will you use HumanTest?</p>
        <fieldset className="choice-group">
          <legend>Role</legend>
          <label className={`choice${v.role === 'poster' ? ' choice--on' : ''}`}>
            <input
              type="radio"
              name="role"
              value="poster"
              checked={v.role === 'poster'}
              onChange={() => change({ role: 'poster' }, 'type')}
            />
            <span>
              <strong>Site owner</strong>
              <small>Post sites to test, $1 per test</small>
            </span>
          </label>
          <label className={`choice${v.role === 'tester' ? ' choice--on' : ''}`}>
            <input
              type="radio"
              name="role"
              value="tester"
              checked={v.role === 'tester'}
              onChange={() => change({ role: 'tester' }, 'type')}
            />
            <span>
              <strong>Tester</strong>
              <small>Test sites, earn {RULE_WORDS.testerShare} per job</small>
            </span>
          </label>
          {errors.type ? <div className="field__error">{errors.type}</div> : null}
        </fieldset>
        {v.role === 'tester' ? (
          <>
            <p className="muted" id="where-testers">
              {WHO_CAN_TEST.summary}
            </p>
            <Field label="Country" error={errors.country} hint={WHO_CAN_TEST.country}>
              <select
                value={v.country}
                onChange={(e) => change({ country: e.target.value }, 'country')}
              >
                <option value="">Select…</option>
                <option value="US">United States (US)</option>
                <option value="PR">Puerto Rico (PR)</option>
                <option value="CA">Canada (CA)</option>
              </select>
            </Field>
          </>
        ) : null}
        {/* A tester's location follows the country: only a site owner picks one. */}
        {v.role === 'tester' ? null : (
          <Field label="Location" error={errors.location}>
            <select
              value={v.location}
              onChange={(e) => change({ location: e.target.value }, 'location')}
            >
              <option value="">Select…</option>
              <option value="USA">USA</option>
              <option value="PR">Puerto Rico (PR)</option>
            </select>
          </Field>
        )}
        <FormMessage error={formError} />
        <button className="btn btn--primary btn--block" type="submit" disabled={isLoading}>
          {isLoading ? 'Saving…' : 'Continue'}
        </button>
        {onLogout ? (
          <button type="button" className="btn btn--ghost btn--block" onClick={onLogout}>
            Logout
          </button>
        ) : null}
      </Form>
    </main>
  );
}
