import { useState } from 'react';
import {
  NOTIFICATION_KIND_INFO,
  NOTIFICATION_KINDS,
  notificationPreferencesBodySchema,
  type NotificationKind,
  type NotificationPreferencesBody,
  type NotificationPreferences,
} from '@htm/contracts/notifications';
import { FormMessage } from '../../../components/field';
import { Loading } from '../../../components/loading';
import { Modal } from '../../../components/modal';
import {
  CancelSubmit,
  Checkbox,
  formSchema,
  SchemaForm,
  useSchemaForm,
} from '../../../components/schema-form';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { UserDto as User } from '@htm/contracts/identity';
import {
  useGetNotificationPreferencesQuery,
  useUpdateNotificationPreferencesMutation,
} from '../api/notification-preferences';

/** The kinds of e-mail that reach this kind of user (the admin sees every kind); account e-mails (everyone's) cannot be switched off. */
export function kindsFor(type: User['type']): NotificationKind[] {
  return NOTIFICATION_KINDS.filter(
    (k) =>
      NOTIFICATION_KIND_INFO[k].audience !== 'everyone' &&
      (type === 'admin' || !type || NOTIFICATION_KIND_INFO[k].audience === type),
  );
}

/** Profile: which e-mails to get, one switch per kind (the unsubscribe link in an e-mail turns one off). */
export default function EmailPreferencesModal({
  user,
  onClose,
}: {
  user: User;
  onClose: () => void;
}) {
  const { data, error, isLoading } = useGetNotificationPreferencesQuery();
  return (
    <Modal title="Your profile: e-mails" onClose={onClose}>
      {isLoading ? <Loading label="Loading your e-mail settings…" /> : null}
      {error ? (
        <FormMessage error={errorMessage(error, 'Could not load your e-mail settings.')} />
      ) : null}
      {data ? <PreferencesForm user={user} saved={data} onClose={onClose} /> : null}
    </Modal>
  );
}

/**
 * The switches, starting from the settings as loaded; Save sends this user's kinds, checked by
 * PATCH /api/notifications/preferences's schema.
 */
function PreferencesForm({
  user,
  saved,
  onClose,
}: {
  user: User;
  saved: NotificationPreferences;
  onClose: () => void;
}) {
  const kinds = kindsFor(user.type);
  const form = useSchemaForm(
    formSchema(
      (v: NotificationPreferences) => Object.fromEntries(kinds.map((k) => [k, v[k]])),
      notificationPreferencesBodySchema,
    ),
    saved,
  );
  const [save] = useUpdateNotificationPreferencesMutation();
  const [message, setMessage] = useState<string | null>(null);
  const { status } = useNotify();

  const submit = async (body: NotificationPreferencesBody) => {
    const res = await save(body);
    if ('error' in res && res.error) {
      setMessage(errorMessage(res.error, 'Could not save your e-mail settings.'));
      return;
    }
    status('E-mail settings saved.');
    onClose();
  };

  return (
    <SchemaForm form={form} onValid={submit} className="form" aria-label="E-mail settings">
      <fieldset>
        <legend>E-mail me at {user.email} when:</legend>
        {kinds.map((k, i) => (
          <Checkbox
            key={k}
            name={k}
            className="check"
            label={NOTIFICATION_KIND_INFO[k].label}
            data-autofocus={i === 0 ? true : undefined}
          />
        ))}
      </fieldset>
      <FormMessage error={message} />
      <CancelSubmit onCancel={onClose}>Save</CancelSubmit>
    </SchemaForm>
  );
}
