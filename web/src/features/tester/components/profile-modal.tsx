import { useState, type FormEvent } from 'react';
import { updateProfileBodySchema } from '@htm/contracts/identity';
import { Field, FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { User } from '../../../lib/types';
import { issuesByField } from '../../../lib/zod-errors';
import { useUpdateProfileMutation } from '../api/update-profile';

/** 'Update Your Profile' (country). The answer carries a fresh token, which is stored. */
export function ProfileModal({ user, onClose }: { user: User; onClose: () => void }) {
  const [country, setCountry] = useState<string>(user.country ?? '');
  const [error, setError] = useState<string | null>(null);
  const [update, { isLoading }] = useUpdateProfileMutation();
  const { status } = useNotify();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = updateProfileBodySchema.safeParse({ country: country || undefined });
    if (!parsed.success) {
      setError(issuesByField(parsed.error.issues).country ?? 'Please choose a country');
      return;
    }
    setError(null);
    const res = await update(parsed.data);
    if ('error' in res && res.error) {
      setError(errorMessage(res.error, 'Failed to update profile'));
      return;
    }
    status('Profile updated.');
    onClose();
  };

  return (
    <Modal title="Update Your Profile" onClose={onClose}>
      <form className="form" onSubmit={submit} noValidate aria-label="Update Your Profile">
        <Field label="Country" hint="Jobs are offered by country. VPNs are not allowed.">
          <select data-autofocus value={country} onChange={(e) => setCountry(e.target.value)}>
            <option value="">Select…</option>
            <option value="US">United States (US)</option>
            <option value="PR">Puerto Rico (PR)</option>
            <option value="CA">Canada (CA)</option>
          </select>
        </Field>
        <FormMessage error={error} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn--primary" disabled={isLoading}>
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}
