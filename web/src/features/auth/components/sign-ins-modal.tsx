import { useState } from 'react';
import { ConfirmButton } from '../../../components/confirm-button';
import { FormMessage } from '../../../components/field';
import { Loading } from '../../../components/loading';
import { Modal } from '../../../components/modal';
import { errorMessage } from '../../../lib/error-message';
import { formatDate } from '../../../lib/format';
import { useNotify } from '../../../lib/hooks';
import {
  useEndSignInMutation,
  useListSignInsQuery,
  useLogoutEverywhereMutation,
} from '../api/sign-ins';
import { badgeClass } from '../../../components/badge';
import styles from './sign-ins-modal.module.css';
import { buttonClass } from '../../../components/button';

/**
 * Account: "Sign-ins". Every browser signed in to this account (device, when it was last
 * used), each of which can be signed out from here, and "Log out everywhere". Ending this
 * browser's own sign-in, or all of them, signs this tab out too (`onSignedOut`).
 */
export default function SignInsModal({
  onClose,
  onSignedOut,
}: {
  onClose: () => void;
  onSignedOut: () => void;
}) {
  const { data: sessions, error, isLoading } = useListSignInsQuery();
  const [endSignIn] = useEndSignInMutation();
  const [logoutEverywhere] = useLogoutEverywhereMutation();
  const [message, setMessage] = useState<string | null>(null);
  const { status } = useNotify();

  const end = async (id: string, current: boolean) => {
    setMessage(null);
    const res = await endSignIn(id);
    if ('error' in res && res.error) {
      setMessage(errorMessage(res.error, 'Could not sign that browser out.'));
      return;
    }
    if (current) return onSignedOut();
    status('Signed out on that device.');
  };

  const everywhere = async () => {
    setMessage(null);
    const res = await logoutEverywhere();
    if ('error' in res && res.error) {
      setMessage(errorMessage(res.error, 'Could not log out everywhere.'));
      return;
    }
    onSignedOut();
  };

  return (
    <Modal title="Your sign-ins" onClose={onClose}>
      <p className="muted">
        Every browser signed in to your account. Sign out any you do not recognise or no longer use.
      </p>
      {isLoading ? <Loading label="Loading your sign-ins…" /> : null}
      {error ? <FormMessage error={errorMessage(error, 'Could not load your sign-ins.')} /> : null}
      {sessions ? (
        <ul className={styles['sign-ins']} aria-label="Sign-ins">
          {sessions.map((s) => (
            <li key={s.id} className={styles['sign-ins__item']}>
              <div>
                <strong>{s.device}</strong>
                {s.current ? (
                  <span className={`${badgeClass()} ${styles['sign-ins__badge']}`}>
                    This browser
                  </span>
                ) : null}
                <div className="muted">
                  Last used {formatDate(s.last_used_at)} · signed in {formatDate(s.created_at)}
                </div>
              </div>
              <ConfirmButton
                label="Sign out"
                question={s.current ? 'Sign out of this browser?' : `Sign out ${s.device}?`}
                confirmLabel="Sign out"
                busyLabel="Signing out…"
                className={buttonClass('ghost', 'sm')}
                onConfirm={() => end(s.id, s.current)}
              />
            </li>
          ))}
        </ul>
      ) : null}
      <FormMessage error={message} />
      <div className="form__actions">
        <ConfirmButton
          label="Log out everywhere"
          question="Sign out of every browser, this one included?"
          confirmLabel="Log out everywhere"
          busyLabel="Logging out…"
          className={buttonClass('secondary')}
          onConfirm={everywhere}
        />
        <button type="button" className={buttonClass('ghost')} onClick={onClose} data-autofocus>
          Close
        </button>
      </div>
    </Modal>
  );
}
