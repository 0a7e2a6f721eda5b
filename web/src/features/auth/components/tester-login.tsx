import { Link } from 'react-router';
import { rememberIntent } from '../../../lib/sign-in-intent';
import brand from '../../../components/brand.module.css';
import noticeStyles from '../../../components/notice.module.css';
import styles from './sign-in.module.css';
import { buttonClass } from '../../../components/button';
import { AuthCard } from '../../../components/auth-card';

/**
 * 'Secure Tester Login': approved testers get in through here, and testers paused by the strike
 * rule (their dashboard shows why and lets them appeal, #34). A refused sign-in says what is true
 * and where to go: the tester signup (not signed up yet) or the site owner sign-in.
 */
export function TesterLogin({ notice, code }: { notice?: string | null; code?: string | null }) {
  return (
    <AuthCard>
      <div className={`${brand.brand} ${styles['brand--center']}`} aria-hidden="true">
        <span className={brand.brand__mark}>$1</span> HumanTest
      </div>
      <h1>Secure Tester Login</h1>
      <p className="muted">
        For approved testers. Sign in with the Gmail account you signed up with.
      </p>
      {notice ? (
        // A signup waiting for the admin is news, not an error.
        <p
          className={
            code === 'tester_signup_pending' ? noticeStyles.notice : 'form-msg form-msg--error'
          }
          role={code === 'tester_signup_pending' ? 'status' : 'alert'}
        >
          {notice}
        </p>
      ) : null}
      {code === 'tester_signup_needed' ? (
        <a className={buttonClass('primary', 'block')} href="/#tester-signup">
          Sign up to test
        </a>
      ) : null}
      {code === 'site_owner_account' ? (
        <a
          className={buttonClass('primary', 'block')}
          href="/api/auth/google?intent=poster"
          onClick={() => rememberIntent('poster')}
        >
          Sign in as a site owner
        </a>
      ) : null}
      <a
        className={buttonClass('google', 'block')}
        href="/api/auth/google?intent=tester"
        onClick={() => rememberIntent('tester')}
      >
        Continue with Google
      </a>
      <Link className={buttonClass('ghost', 'block')} to="/">
        Back to Home
      </Link>
    </AuthCard>
  );
}
