import { RULE_WORDS } from '@htm/contracts/marketplace';
import { Link } from 'react-router';
import { useSiteInfo } from '../../../lib/site-info';
import { InfoPage } from './info-page';
import styles from './policy-pages.module.css';

const UPDATED = 'Last updated: 26 November 2026.';

/** How to write to the operator: their e-mail when configured, else the feedback form. */
function Mail() {
  const { supportEmail } = useSiteInfo();
  return supportEmail ? (
    <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
  ) : (
    <>
      the feedback form at the bottom of the <Link to="/">home page</Link>
    </>
  );
}
const mail = <Mail />;

/** Who runs HumanTest (OPERATOR_NAME, OPERATOR_ADDRESS), when configured. */
function Operator() {
  const { operator, address } = useSiteInfo();
  if (!operator) return null;
  return (
    <>
      <h2>Who we are</h2>
      <p>
        HumanTest is run by {operator}
        {address ? `, ${address}` : ''}. When these pages say &quot;we&quot;, they mean {operator}.
      </p>
    </>
  );
}

/** /terms: the rules of the marketplace in plain words. */
export function TermsPage() {
  return (
    <InfoPage title="Terms of Service" lead={UPDATED}>
      <div className={styles.prose}>
        <Operator />
        <h2>What HumanTest is</h2>
        <p>
          HumanTest connects site owners who want a real person to try their website with approved
          testers. A test costs $1, paid at checkout before the job is shown to testers. Testers
          observe and report what a real user would notice; they do not fix bugs, write code or do
          formal QA.
        </p>
        <h2>Accounts</h2>
        <p>
          You sign in with a Google (Gmail) account. Keep it secure: what happens in your account is
          your responsibility. Testers are approved by an admin before their first job, and only
          testers in the locations a job allows can take it.
        </p>
        <h2>Site owners</h2>
        <ul>
          <li>Only post sites you own or are allowed to have tested, and nothing illegal.</li>
          <li>
            You see a preview when work is submitted; the full results unlock when you accept them,
            or automatically after {RULE_WORDS.autoAcceptWindow}.
          </li>
          <li>
            Every job includes one free revision: the tester then has {RULE_WORDS.revisionWindow} to
            resubmit.
          </li>
        </ul>
        <h2>Testers</h2>
        <ul>
          <li>
            You earn {RULE_WORDS.testerShare} for each accepted job; the platform keeps{' '}
            {RULE_WORDS.platformFee}.
          </li>
          <li>
            Hold one job at a time and submit before its deadline. A claim that runs out, or a
            revision not made in time, releases the job and counts as a strike.
          </li>
          <li>Report honestly what you saw. Never enter real payment details on a tested site.</li>
        </ul>
        <h2>Content</h2>
        <p>
          Site owners own the reports about their sites. Testers let us and the site owner use what
          they submit (text, screenshots, recordings) for that job.
        </p>
        <h2>Changes and contact</h2>
        <p>
          We may change these terms; the date above says when they last changed. Questions: {mail}.
          See also the <Link to="/privacy">Privacy Policy</Link> and the{' '}
          <Link to="/refunds">Refund Policy</Link>.
        </p>
      </div>
    </InfoPage>
  );
}

/** /privacy: what is collected, why, and for how long. */
export function PrivacyPage() {
  return (
    <InfoPage title="Privacy Policy" lead={UPDATED}>
      <div className={styles.prose}>
        <Operator />
        <h2>What we collect</h2>
        <ul>
          <li>From Google sign-in: your name and e-mail address.</li>
          <li>
            What you choose: your role, location and (testers) country and assistive technology.
          </li>
          <li>
            What you post or submit: jobs, reports, screenshots and screen recordings, ratings and
            feedback.
          </li>
          <li>
            Payments are handled by our payment provider; we never see or store your card number.
          </li>
        </ul>
        <h2>Why</h2>
        <p>
          To run the marketplace: show jobs to the testers who may take them, deliver reports, pay
          testers, send the e-mails you asked for, and keep the service safe. We do not sell your
          data and show no advertising.
        </p>
        <h2>Cookies</h2>
        <p>
          Only the cookies sign-in needs (a session cookie and a security token). No tracking or
          advertising cookies.
        </p>
        <h2>How long</h2>
        <p>
          Screen recordings of completed jobs are deleted after 90 days. Everything else is kept
          while your account exists; write to us to have it deleted.
        </p>
        <h2>Your rights</h2>
        <p>
          Signed in, open Account, then Your data, to download everything we hold about you or to
          delete your account. For a correction, or anything else, write to {mail}. E-mails can be
          turned off from the link in each of them.
        </p>
      </div>
    </InfoPage>
  );
}

/** /refunds: when the $1 comes back. */
export function RefundPage() {
  return (
    <InfoPage title="Refund Policy" lead={UPDATED}>
      <div className={styles.prose}>
        <Operator />
        <h2>If the report is not useful</h2>
        <p>
          Every job includes one free revision: ask the tester for more detail from the job&apos;s
          results, and they have {RULE_WORDS.revisionWindow} to resubmit. If they do not, the job
          goes back to other testers at no cost to you.
        </p>
        <h2>When you get your $1 back</h2>
        <ul>
          <li>You paid twice for the same job: the second payment is refunded automatically.</li>
          <li>No tester delivered a report for a paid job: write to us and we refund it.</li>
          <li>A paid job nobody finished is removed by us: it is refunded automatically.</li>
        </ul>
        <p>Refunds go back to the card you paid with; your bank may take 5-10 days to show them.</p>
        <h2>Ask for a refund</h2>
        <p>
          Write to {mail} with the job&apos;s title or number within 30 days of paying. We answer
          within one business day.
        </p>
      </div>
    </InfoPage>
  );
}
