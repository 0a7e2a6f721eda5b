import { useState, type FormEvent } from 'react';
import {
  ASSISTIVE_TECH,
  ASSISTIVE_TECH_LABELS,
  updateProfileBodySchema,
  type AssistiveTech,
} from '@htm/contracts/identity';
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { formErrorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { UserDto as User } from '@htm/contracts/identity';
import { issuesByField } from '../../../lib/zod-errors';
import { useUpdateProfileMutation } from '../api/update-profile';
import { Form } from '../../../components/form';

/**
 * 'Update Your Profile' (country, and the assistive technology the tester uses). The answer
 * carries a fresh token, which is stored.
 */
export function ProfileModal({ user, onClose }: { user: User; onClose: () => void }) {
  const [country, setCountry] = useState<string>(user.country ?? '');
  const [tech, setTech] = useState<AssistiveTech[]>(user.assistive_tech ?? []);
  const toggleTech = (t: AssistiveTech, on: boolean) =>
    setTech((list) => (on ? [...list.filter((x) => x !== t), t] : list.filter((x) => x !== t)));
  const [error, setError] = useState<string | null>(null);
  const [update, { isLoading }] = useUpdateProfileMutation();
  const { status } = useNotify();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!country) {
      setError('Please choose a country');
      return;
    }
    const parsed = updateProfileBodySchema.safeParse({ country, assistive_tech: tech });
    if (!parsed.success) {
      const byField = issuesByField(parsed.error.issues);
      setError(byField.country ?? byField.assistive_tech ?? 'Please check your profile');
      return;
    }
    setError(null);
    const res = await update(parsed.data);
    if ('error' in res && res.error) {
      setError(formErrorMessage(res.error, 'Failed to update profile'));
      return;
    }
    status('Profile updated.');
    onClose();
  };

  return (
    <Modal title="Update Your Profile" onClose={onClose}>
      <Form className="form" onSubmit={submit} noValidate aria-label="Update Your Profile">
        <Field label="Country" hint="Jobs are offered by country. VPNs are not allowed.">
          <select data-autofocus value={country} onChange={(e) => setCountry(e.target.value)}>
            <option value="">Select…</option>
            <option value="US">United States (US)</option>
            <option value="PR">Puerto Rico (PR)</option>
            <option value="CA">Canada (CA)</option>
          </select>
        </Field>
        <fieldset className="choice-group">
          <legend>Assistive technology you use</legend>
          <p className="muted">
            Some site owners ask for a tester who uses one of these. Only you and the admin see it.
          </p>
          {ASSISTIVE_TECH.map((t) => (
            <label className="switch" key={t}>
              <input
                type="checkbox"
                checked={tech.includes(t)}
                onChange={(e) => toggleTech(t, e.target.checked)}
              />
              <span>I use {ASSISTIVE_TECH_LABELS[t]}</span>
            </label>
          ))}
        </fieldset>
        <FormMessage error={error} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={isLoading}>
            Save
          </button>
        </div>
      </Form>
    </Modal>
  );
}
