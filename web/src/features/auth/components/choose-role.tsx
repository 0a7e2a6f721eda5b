import { useState } from 'react';
import { initUserBodySchema } from '@htm/contracts/identity';
import { RULE_WORDS, WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { rememberedIntent } from '../../../lib/sign-in-intent';
import { FormMessage } from '../../../components/field';
import {
  RadioGroup,
  rulesSchema,
  SchemaForm,
  Select,
  SubmitButton,
  useSchemaForm,
} from '../../../components/schema-form';
import { formErrorMessage } from '../../../lib/error-message';
import { COUNTRY_OPTIONS } from '../../../lib/countries';
import choice from '../../../components/choice.module.css';
import { issuesByField } from '../../../lib/zod-errors';
import { useInitUserMutation, type InitUserBody } from '../api/init-user';
import { buttonClass } from '../../../components/button';
import authCard from '../../../components/auth-card.module.css';

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

const ROLE_OPTIONS = [
  [
    'poster',
    <>
      <strong>Site owner</strong>
      <small>Post sites to test, $1 per test</small>
    </>,
  ],
  [
    'tester',
    <>
      <strong>Tester</strong>
      <small>Test sites, earn {RULE_WORDS.testerShare} per job</small>
    </>,
  ],
] as const;
const LOCATION_OPTIONS = [
  ['', 'Select…'],
  ['USA', 'USA'],
  ['PR', 'Puerto Rico (PR)'],
] as const;

/** The form's schema: `validateRoleChoice` (the shared schema's rules), its 'type' is the role. */
const roleChoiceSchema = rulesSchema<RoleChoice>((v) => {
  const { type, ...rest } = validateRoleChoice(v);
  return type ? { ...rest, role: type } : rest;
});

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
  const form = useSchemaForm(roleChoiceSchema, { role: intent ?? '', location: '', country: '' });
  const role = form.watch('role');
  const [formError, setFormError] = useState<string | null>(null);
  const [initUser] = useInitUserMutation();

  const submit = async (v: RoleChoice) => {
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
    <main className={authCard['auth-page']} id="main">
      <SchemaForm
        form={form}
        onValid={submit}
        onAttempt={() => setFormError(null)}
        className={authCard['auth-card']}
      >
        <h1>Choose Your Role</h1>
        <p className="muted">{name ? `Welcome, ${name}. ` : ''}How will you use HumanTest?</p>
        <RadioGroup
          name="role"
          legend="Role"
          options={ROLE_OPTIONS}
          className={choice.group}
          optionClassName={(on) => (on ? `${choice.choice} ${choice.on}` : choice.choice)}
        />
        {role === 'tester' ? (
          <>
            <p className="muted" id="where-testers">
              {WHO_CAN_TEST.summary}
            </p>
            <Select
              name="country"
              label="Country"
              hint={WHO_CAN_TEST.country}
              options={COUNTRY_OPTIONS}
            />
          </>
        ) : null}
        {/* A tester's location follows the country: only a site owner picks one. */}
        {role === 'tester' ? null : (
          <Select name="location" label="Location" options={LOCATION_OPTIONS} />
        )}
        <FormMessage error={formError} />
        <SubmitButton className={buttonClass('primary', 'block')} busyLabel="Saving…">
          Continue
        </SubmitButton>
        {onLogout ? (
          <button type="button" className={buttonClass('ghost', 'block')} onClick={onLogout}>
            Logout
          </button>
        ) : null}
      </SchemaForm>
    </main>
  );
}
