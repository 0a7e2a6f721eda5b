import { Link } from 'react-router';
import { SUPPORT_EMAIL } from '../lib/config';

/** The public pages' footer: who runs the product, how to reach them, the policies. */
export function SiteFooter() {
  return (
    <footer className="site-footer">
      <div className="container site-footer__inner">
        <div>
          <p className="site-footer__brand">HumanTest — $1 human website testing</p>
          <p>
            Contact: <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> · we answer within one
            business day.
          </p>
        </div>
        <nav aria-label="Footer">
          <ul className="site-footer__links">
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
