import { Link } from 'react-router';
import { useSiteInfo } from '../lib/site-info';
import styles from './site-footer.module.css';

/** The public pages' footer: who runs the product and how to reach them (when configured), the policies. */
export function SiteFooter() {
  const { operator, supportEmail } = useSiteInfo();
  return (
    <footer className={styles['site-footer']}>
      <div className={`container ${styles['site-footer__inner']}`}>
        <div>
          <p className={styles['site-footer__brand']}>HumanTest — $1 human website testing</p>
          {operator ? <p>Run by {operator}.</p> : null}
          {supportEmail ? (
            <p>
              Contact: <a href={`mailto:${supportEmail}`}>{supportEmail}</a> · we answer within one
              business day.
            </p>
          ) : null}
        </div>
        <nav aria-label="Footer">
          <ul className={styles['site-footer__links']}>
            <li>
              <Link to="/example-report">Example report</Link>
            </li>
            <li>
              <Link to="/terms">Terms</Link>
            </li>
            <li>
              <Link to="/privacy">Privacy</Link>
            </li>
            <li>
              <Link to="/refunds">Refunds</Link>
            </li>
            <li>
              <Link to="/login/tester">Tester Login</Link>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
