import { Link } from 'react-router';
import { getToken } from '../../../lib/tokens';
import { PAYMENT_MESSAGES } from '../messages';
import { buttonClass } from '../../../components/button';
import { AuthCard } from '../../../components/auth-card';

export default function PaymentCancel() {
  return (
    <AuthCard>
      <h1>Payment cancelled</h1>
      <p className="form-msg form-msg--error" role="alert">
        {PAYMENT_MESSAGES.cancelled}
      </p>
      <p className="muted">You can pay later with 'Pay now' on the job in your dashboard.</p>
      <Link className={buttonClass('primary', 'block')} to={getToken() ? '/dashboard' : '/'}>
        {getToken() ? 'Go to Dashboard' : 'Back to Home'}
      </Link>
    </AuthCard>
  );
}
