import { Link } from 'react-router';
import { SESSION_EXPIRED, SESSION_EXPIRED_BANNER } from '../auth-errors';
import brand from '../../../components/brand.module.css';
import noticeStyles from '../../../components/notice.module.css';
import styles from './sign-in.module.css';
import { buttonClass } from '../../../components/button';
import { AuthCard } from '../../../components/auth-card';

/** Plain sign-in screen (shown after auth-expired with 'Session expired. Please log in again.'). */
export function SignIn({ notice }: { notice?: string | null }) {
  return (
    <AuthCard
      banner={
        notice === SESSION_EXPIRED ? (
          <p className={`${noticeStyles.notice} ${styles['session-banner']}`} role="status">
            {SESSION_EXPIRED_BANNER}
          </p>
        ) : null
      }
    >
      <div className={`${brand.brand} ${styles['brand--center']}`} aria-hidden="true">
        <span className={brand.brand__mark}>$1</span> HumanTest
      </div>
      <h1>Sign in</h1>
      {notice ? (
        <p className="form-msg form-msg--error" role="alert">
          {notice}
        </p>
      ) : (
        <p className="muted">Sign in with your Gmail account to post jobs or test sites.</p>
      )}
      <a className={buttonClass('google', 'block')} href="/api/auth/google">
        Sign in with Google
      </a>
      <Link className={buttonClass('ghost', 'block')} to="/login/tester">
        Tester Login
      </Link>
      <Link className={buttonClass('ghost', 'block')} to="/">
        Back to Home
      </Link>
    </AuthCard>
  );
}
