import { useState } from 'react';
import {
  ASSISTIVE_TECH,
  ASSISTIVE_TECH_LABELS,
  updateProfileBodySchema,
  type AssistiveTech,
  type UpdateProfileBody,
  type UserDto as User,
} from '@htm/contracts/identity';
import { FormMessage } from '../../../components/field';
import { Modal } from '../../../components/modal';
import {
  CancelSubmit,
  CheckboxGroup,
  formSchema,
  SchemaForm,
  Select,
  useSchemaForm,
} from '../../../components/schema-form';
import { formErrorMessage } from '../../../lib/error-message';
import { COUNTRY_OPTIONS } from '../../../lib/countries';
import choice from '../../../components/choice.module.css';
import { useNotify } from '../../../lib/hooks';
import { useUpdateProfileMutation } from '../api/update-profile';

interface ProfileValues {
  country: string;
  assistive_tech: AssistiveTech[];
}

/** PATCH /api/users/profile's schema: a country must be chosen ('Please choose a country'). */
const profileSchema = formSchema((v: ProfileValues) => v, updateProfileBodySchema);

const TECH_OPTIONS = ASSISTIVE_TECH.map((t) => [t, `I use ${ASSISTIVE_TECH_LABELS[t]}`] as const);

/**
 * 'Update Your Profile' (country, and the assistive technology the tester uses). The answer
 * carries a fresh token, which is stored.
 */
export function ProfileModal({ user, onClose }: { user: User; onClose: () => void }) {
  const form = useSchemaForm(profileSchema, {
    country: user.country ?? '',
    assistive_tech: user.assistive_tech ?? [],
  });
  const [error, setError] = useState<string | null>(null);
  const [update] = useUpdateProfileMutation();
  const { status } = useNotify();

  const submit = async (body: UpdateProfileBody) => {
    const res = await update(body);
    if ('error' in res && res.error) {
      setError(formErrorMessage(res.error, 'Failed to update profile'));
      return;
    }
    status('Profile updated.');
    onClose();
  };

  return (
    <Modal title="Update Your Profile" onClose={onClose}>
      <SchemaForm
        form={form}
        onValid={submit}
        onAttempt={() => setError(null)}
        className="form"
        aria-label="Update Your Profile"
      >
        <Select
          name="country"
          label="Country"
          hint="Jobs are offered by country. VPNs are not allowed."
          options={COUNTRY_OPTIONS}
          data-autofocus
        />
        <CheckboxGroup
          name="assistive_tech"
          legend="Assistive technology you use"
          options={TECH_OPTIONS}
          className={choice.group}
        >
          <p className="muted">
            Some site owners ask for a tester who uses one of these. Only you and the admin see it.
          </p>
        </CheckboxGroup>
        <FormMessage error={error} />
        <CancelSubmit onCancel={onClose}>Save</CancelSubmit>
      </SchemaForm>
    </Modal>
  );
}
