import { Link, useSearchParams } from 'react-router';
import { formatDate } from '../../../lib/format';
import { buttonClass } from '../../../components/button';
import { AuthCard } from '../../../components/auth-card';

/**
 * /account-deleted?on=<ISO date>: where a person lands after confirming "Delete my account" (every
 * sign-in has ended): when it happens, and how to cancel it. A real URL, so a reload keeps it.
 */
export default function AccountDeleted() {
  const [params] = useSearchParams();
  const on = params.get('on');
  const date = on && !Number.isNaN(Date.parse(on)) ? formatDate(on) : null;
  return (
    <AuthCard>
      <h1>Your account is scheduled for deletion</h1>
      <p role="status">
        {date
          ? `Your account will be deleted on ${date}; sign in before then to cancel.`
          : 'Your account will be deleted in a few days; sign in before then to cancel.'}
      </p>
      <p className="muted">
        Then we erase your profile, your jobs&apos; personal details, reports&apos; files and
        recordings, sign-ins and e-mails. Money records are kept for accounting, with your name
        replaced by an anonymous id.
      </p>
      <a className={buttonClass('primary', 'block')} href="/api/auth/google">
        Sign in to cancel the deletion
      </a>
      <Link className={buttonClass('ghost', 'block')} to="/">
        Back to Home
      </Link>
    </AuthCard>
  );
}
