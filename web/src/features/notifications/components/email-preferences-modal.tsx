import { useEffect, useState, type FormEvent } from 'react';
import {
  NOTIFICATION_KIND_INFO,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationPreferences,
} from '@htm/contracts/notifications';
import { FormMessage } from '../../../components/field';
import { Loading } from '../../../components/loading';
import { Modal } from '../../../components/modal';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { UserDto as User } from '@htm/contracts/identity';
import {
  useGetNotificationPreferencesQuery,
  useUpdateNotificationPreferencesMutation,
} from '../api/notification-preferences';
import { Form } from '../../../components/form';

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
  const [save, { isLoading: saving }] = useUpdateNotificationPreferencesMutation();
  const [draft, setDraft] = useState<NotificationPreferences | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const { status } = useNotify();
  useEffect(() => {
    if (data && !draft) setDraft(data);
  }, [data, draft]);
  const kinds = kindsFor(user.type);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const res = await save(Object.fromEntries(kinds.map((k) => [k, draft[k]])));
    if ('error' in res && res.error) {
      setMessage(errorMessage(res.error, 'Could not save your e-mail settings.'));
      return;
    }
    status('E-mail settings saved.');
    onClose();
  };

  return (
    <Modal title="Your profile: e-mails" onClose={onClose}>
      {isLoading ? <Loading label="Loading your e-mail settings…" /> : null}
      {error ? (
        <FormMessage error={errorMessage(error, 'Could not load your e-mail settings.')} />
      ) : null}
      {draft ? (
        <Form className="form" onSubmit={submit} aria-label="E-mail settings">
          <fieldset>
            <legend>E-mail me at {user.email} when:</legend>
            {kinds.map((k, i) => (
              <label key={k} className="check">
                <input
                  type="checkbox"
                  data-autofocus={i === 0 ? true : undefined}
                  checked={draft[k]}
                  onChange={(ev) => setDraft({ ...draft, [k]: ev.target.checked })}
                />{' '}
                {NOTIFICATION_KIND_INFO[k].label}
              </label>
            ))}
          </fieldset>
          <FormMessage error={message} />
          <div className="form__actions">
            <button type="button" className="btn btn--ghost" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="btn btn--primary" disabled={saving}>
              Save
            </button>
          </div>
        </Form>
      ) : null}
    </Modal>
  );
}
