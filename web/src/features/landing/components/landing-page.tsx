import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { RULE_WORDS, WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { scrollToSection } from '../scroll-to-section';
import { Link, useLocation } from 'react-router';
import { SiteFooter } from '../../../components/site-footer';
import { useHydrated } from '../use-hydrated';
import { SiteHeader } from '../../../components/site-header';
import card from '../../../components/card.module.css';
import section from '../../../components/section.module.css';
import styles from './landing-page.module.css';
import { buttonClass } from '../../../components/button';
import { SkipLink } from '../../../components/skip-link';

// The forms (and the API layer they use) load right after first paint, keeping the
// landing page's initial JavaScript small.
const WaitlistForm = lazy(() =>
  import('./waitlist-form').then((m) => ({ default: m.WaitlistForm })),
);
const TesterSignupForm = lazy(() =>
  import('./tester-signup-form').then((m) => ({ default: m.TesterSignupForm })),
);
const JobRequestForm = lazy(() =>
  import('./job-request-form').then((m) => ({ default: m.JobRequestForm })),
);
const DeveloperLeadForm = lazy(() =>
  import('./developer-lead-form').then((m) => ({ default: m.DeveloperLeadForm })),
);
const LiveProof = lazy(() => import('./live-proof').then((m) => ({ default: m.LiveProof })));
const FeedbackForm = lazy(() =>
  import('../../../components/feedback-form').then((m) => ({ default: m.FeedbackForm })),
);

const formPlaceholder = (
  <div className={`form-placeholder ${styles['form-placeholder']}`} aria-busy="true">
    Loading form…
  </div>
);

/**
 * A form loaded on demand. The prerendered page and the hydrating client render show the
 * placeholder itself (no Suspense boundary the server left unfinished, which React would report
 * as a hydration error); the form's chunk starts loading once the page is hydrated.
 */
function Deferred({ children }: { children: ReactNode }) {
  const hydrated = useHydrated();
  if (!hydrated) return formPlaceholder;
  return <Suspense fallback={formPlaceholder}>{children}</Suspense>;
}

const SAMPLES = [
  {
    site: 'Bakery ordering site',
    tag: 'Checkout',
    quote:
      '"I added a cake to the cart, but the cart icon still said 0 until I refreshed. I almost ordered twice."',
    who: 'Tester (student), iPhone 13 · Safari',
  },
  {
    site: 'SaaS landing page',
    tag: 'First impression',
    quote:
      '"I read the whole hero and still could not tell what the product does. The pricing link is hidden in the footer."',
    who: 'Tester (9-to-5), Windows laptop · Chrome',
  },
  {
    site: 'Portfolio site',
    tag: 'Mobile',
    quote:
      '"On my phone the contact button sits under the cookie banner, so I could not tap it at all."',
    who: 'Tester (Global community), Android · Chrome',
  },
];

const FAQ = [
  {
    q: 'What do I get for $1?',
    a: 'One real person visits your site, follows your instructions and checks each thing you list. You get their plain-language observations, up to three key findings ranked by severity (with steps, what they expected and what happened), their screenshots and, when they record it, a video of their screen with their voice. Share it by link or PDF, or send findings to GitHub or Jira. Want more opinions? Order up to 10 testers at once, $1 each, and see what they agree on.',
  },
  {
    q: 'How fast are results?',
    a: 'Usually within 24-48 hours (compared with 3-7 days elsewhere). Each test takes the tester 5-10 minutes.',
  },
  {
    q: 'What if the feedback is not useful?',
    a: `Every job includes one free revision: ask the tester for more detail and they have ${RULE_WORDS.revisionWindow} to resubmit. Testers who repeatedly fail are released from the platform.`,
  },
  {
    q: 'Can someone who uses a screen reader test my site?',
    a: "Yes. When you post a job, choose 'Tested by someone who uses a screen reader' (or a keyboard only, a screen magnifier, voice control, switch access or captions). Only testers who use it every day can take the job, for the same $1.",
  },
  {
    q: 'Will I get fresh eyes every time?',
    a: "By default, yes: 'A tester who has not seen my site before' keeps testers who already tested your site away from your new job. Turn it off if you want someone who knows it.",
  },
  {
    q: 'Do testers fix bugs or write code?',
    a: 'No. Testers only observe and report what a real user would notice. They do not fix, code or do formal QA.',
  },
  {
    q: 'When can I read the full results?',
    a: `You see a preview as soon as work is submitted. Full results unlock when you accept, or automatically after ${RULE_WORDS.autoAcceptWindow}.`,
  },
  {
    q: 'How do testers get paid?',
    a: `Testers earn ${RULE_WORDS.testerShare} per accepted job; the platform keeps an ${RULE_WORDS.platformFeePct} fee (${RULE_WORDS.platformFee}). Payouts go to a connected payout account.`,
  },
  {
    q: 'Why Google sign-in only?',
    a: 'Sign-in is through Google with a Gmail account. Other e-mail providers are coming soon: join the waitlist and we will let you know.',
  },
];

interface LandingPageProps {
  signedIn: boolean;
  /** Message from a failed sign-in (#auth_error=…). */
  authError?: { code: string; message: string } | null;
}

/** The landing's sections a link may open (/#job-request from the other public pages). */
const SECTIONS = new Set(['samples', 'job-request', 'tester-signup', 'how', 'faq']);

export function LandingPage({ signedIn, authError }: LandingPageProps) {
  const { hash } = useLocation();
  const hydrated = useHydrated();
  useEffect(() => {
    const id = hash.slice(1);
    if (hydrated && SECTIONS.has(id)) scrollToSection(id);
  }, [hash, hydrated]);
  // Only one waitlist form at a time: the sign-in problem's, when it offers one.
  const waitlistAtTop = authError?.code === 'gmail_only';
  return (
    <div className="landing">
      <SkipLink />
      <aside aria-label="Offer">
        <p className={`promo-banner ${styles['promo-banner']}`}>
          $1 for the human quirks AI skips - real eyes for real users.
        </p>
      </aside>
      <SiteHeader>
        <button
          type="button"
          className={buttonClass('ghost')}
          data-scroll-to="samples"
          onClick={() => scrollToSection('samples')}
        >
          See Samples
        </button>
        <button
          type="button"
          className={buttonClass('ghost')}
          data-scroll-to="tester-signup"
          onClick={() => scrollToSection('tester-signup')}
        >
          Start Testing &amp; Earning
        </button>
        <button
          type="button"
          className={buttonClass('secondary')}
          data-scroll-to="job-request"
          onClick={() => scrollToSection('job-request')}
        >
          Get Your Site Tested
        </button>
        {signedIn ? (
          <Link className={buttonClass('primary')} to="/dashboard">
            Go to Dashboard
          </Link>
        ) : (
          <a className={buttonClass('primary')} href="/api/auth/google">
            Sign in with Google
          </a>
        )}
      </SiteHeader>

      <main id="main" tabIndex={-1}>
        {authError ? (
          <section
            className={`container ${styles['auth-error']}`}
            role="alert"
            aria-label="Sign-in problem"
          >
            <h2>{authError.message}</h2>
            {authError.code === 'gmail_only' ? (
              <>
                <p>
                  Sign-in needs a Gmail account for now. Join the waitlist and we'll tell you when
                  your provider works.
                </p>
                <Deferred>
                  <WaitlistForm />
                </Deferred>
              </>
            ) : null}
          </section>
        ) : null}

        <section className={`hero ${styles.hero}`}>
          <div className={`container ${styles.hero__grid}`}>
            <div>
              <p className={styles.eyebrow}>Human website testing</p>
              <h1>Real people test your website for $1.</h1>
              <p className={styles.hero__lead}>
                Send a URL and what to check. A real person uses your site the way your customers do
                and tells you, in plain language, where they got stuck — within 24-48 hours.
              </p>
              <div className={styles.hero__cta}>
                <button
                  type="button"
                  className={buttonClass('primary', 'lg')}
                  data-scroll-to="job-request"
                  onClick={() => scrollToSection('job-request')}
                >
                  Get Your Site Tested
                </button>
                <button
                  type="button"
                  className={buttonClass('secondary', 'lg')}
                  data-scroll-to="samples"
                  onClick={() => scrollToSection('samples')}
                >
                  See Samples
                </button>
              </div>
              <p className={styles.hero__example}>
                <Link to="/example-report">See a complete example report</Link>
              </p>
              <ul className={styles.hero__facts} aria-label="Key facts">
                <li>
                  <strong>$1</strong> per test
                </li>
                <li>
                  <strong>24-48 h</strong> turnaround
                </li>
                <li>
                  <strong>1 free</strong> revision
                </li>
              </ul>
              {hydrated ? (
                <Suspense fallback={null}>
                  <LiveProof />
                </Suspense>
              ) : null}
            </div>
            <aside className={styles['price-card']} aria-label="Pricing">
              <p className={styles['price-card__label']}>One human test</p>
              <p className={styles['price-card__price']}>
                $1<span>/test</span>
              </p>
              <ul className={styles.checklist}>
                <li>A real person, not a bot, checks up to 10 things in your words</li>
                <li>A recording of their screen and voice, findings pinned to its timeline</li>
                <li>Findings ranked by severity, with steps to reproduce and screenshots</li>
                <li>A share link, a PDF, and one click to GitHub or Jira</li>
                <li>Order several testers in one checkout and see what they agree on</li>
                <li>Results in 24-48 hours, not 3-7 days; one free revision</li>
              </ul>
              <button
                type="button"
                className={buttonClass('primary', 'block')}
                data-scroll-to="job-request"
                onClick={() => scrollToSection('job-request')}
              >
                Start for $1
              </button>
            </aside>
          </div>
        </section>

        <section
          id="samples"
          className={section.section}
          tabIndex={-1}
          aria-labelledby="samples-title"
        >
          <div className="container">
            <h2 id="samples-title">Sample findings</h2>
            <p className={section.section__lead}>The kind of human quirks automated tools skip.</p>
            <div className={`${card.cards} ${card['cards--3']}`}>
              {SAMPLES.map((s) => (
                <figure className={`${card.card} ${styles.sample}`} key={s.site}>
                  <div className={styles.sample__head}>
                    <span className={styles.tag}>{s.tag}</span>
                    <span className="muted">{s.site}</span>
                  </div>
                  <blockquote>{s.quote}</blockquote>
                  <figcaption className="muted">{s.who}</figcaption>
                </figure>
              ))}
            </div>
            <p className={styles.samples__more}>
              <Link className={buttonClass('secondary')} to="/example-report">
                Read a complete example report
              </Link>
            </p>
          </div>
        </section>

        <section
          id="who"
          className={`${section.section} ${styles['section--alt']}`}
          tabIndex={-1}
          aria-labelledby="who-title"
        >
          <div className="container">
            <h2 id="who-title">Who it's for</h2>
            <div className={`${card.cards} ${card['cards--3']}`}>
              <div className={card.card}>
                <h3>Indie founders</h3>
                <p>Check a launch page or signup flow before you spend on ads.</p>
              </div>
              <div className={card.card}>
                <h3>Small businesses</h3>
                <p>Find out if customers can actually book, order or contact you.</p>
              </div>
              <div className={card.card}>
                <h3>Agencies &amp; freelancers</h3>
                <p>Get a fresh pair of eyes on client work before handover.</p>
              </div>
            </div>
          </div>
        </section>

        <section
          id="job-request"
          className={section.section}
          tabIndex={-1}
          aria-labelledby="job-request-title"
        >
          <div className={`container ${styles.split}`}>
            <div>
              <h2 id="job-request-title">Get your site tested</h2>
              <p className={section.section__lead}>
                Tell us what to look at. After you sign in with Google, Post New Job opens with your
                request filled in, ready to pay $1.
              </p>
              <ul className={styles.checklist}>
                <li>$1 per test, paid securely at checkout</li>
                <li>Feedback from real humans within 24-48 hours</li>
                <li>
                  You only see the full results once you're happy — or after{' '}
                  {RULE_WORDS.autoAcceptWindow}
                </li>
              </ul>
            </div>
            <div className={`${card.card} ${styles['card--form']}`}>
              <Deferred>
                <JobRequestForm signedIn={signedIn} />
              </Deferred>
            </div>
          </div>
        </section>

        <section
          id="who-continued"
          className={`${section.section} ${styles['section--alt']}`}
          tabIndex={-1}
          aria-labelledby="who-cont-title"
        >
          <div className="container">
            <h2 id="who-cont-title">Who tests your site</h2>
            <p className={section.section__lead}>
              Students, employed builders, experimenters, beginners, indie founders, agencies,
              disabled creators and people worldwide. Testers earn {RULE_WORDS.testerShare} per job
              for 5-10 minutes of honest observation. They observe and report; they don't fix or
              code.
            </p>
            <p className={section.section__lead}>
              Need to know your site works with assistive technology? Ask for a test by someone who
              uses a screen reader, only a keyboard, a screen magnifier, voice control, switch
              access or captions, still for $1. Top-rated testers see new jobs first, and you can
              ask for a tester who has never seen your site before.
            </p>
          </div>
        </section>

        <section id="how" className={section.section} tabIndex={-1} aria-labelledby="how-title">
          <div className="container">
            <h2 id="how-title">How it works</h2>
            <ol className={styles.steps}>
              <li className={styles.step}>
                <span className={styles.step__n} aria-hidden="true">
                  1
                </span>
                <h3>Post your URL</h3>
                <p>Add up to 10 things to check and pay $1.</p>
              </li>
              <li className={styles.step}>
                <span className={styles.step__n} aria-hidden="true">
                  2
                </span>
                <h3>A real person tests it</h3>
                <p>
                  An approved tester uses your site for 5-10 minutes and writes down what they
                  notice.
                </p>
              </li>
              <li className={styles.step}>
                <span className={styles.step__n} aria-hidden="true">
                  3
                </span>
                <h3>Read the findings</h3>
                <p>Accept the report or ask for one free revision. Results in 24-48 hours.</p>
              </li>
            </ol>
          </div>
        </section>

        <section
          id="faq"
          className={`${section.section} ${styles['section--alt']}`}
          tabIndex={-1}
          aria-labelledby="faq-title"
        >
          <div className="container container--narrow">
            <h2 id="faq-title">Frequently asked questions</h2>
            <div className={styles.faq}>
              {FAQ.map((f) => (
                <details key={f.q}>
                  <summary>{f.q}</summary>
                  <p>{f.a}</p>
                </details>
              ))}
            </div>
          </div>
        </section>

        <section
          id="tester-signup"
          className={section.section}
          tabIndex={-1}
          aria-labelledby="tester-title"
        >
          <div className={`container ${styles.split}`}>
            <div>
              <h2 id="tester-title">Start testing &amp; earning</h2>
              <p className={section.section__lead}>
                Earn {RULE_WORDS.testerShare} per job. Each test takes 5-10 minutes: visit a site,
                follow the checklist, write what you noticed. Sign up and an admin approves you
                before your first job.
              </p>
              <p className="who-can-test">
                <strong>Who can test from where.</strong> {WHO_CAN_TEST.summary}
              </p>
              {waitlistAtTop ? null : (
                <div className={`${card.card} ${card['card--soft']}`}>
                  <h3>No Gmail? Join the waitlist</h3>
                  <p className="muted">Other e-mail providers coming soon.</p>
                  <Deferred>
                    <WaitlistForm />
                  </Deferred>
                </div>
              )}
            </div>
            <div className={`${card.card} ${styles['card--form']}`}>
              <Deferred>
                <TesterSignupForm />
              </Deferred>
            </div>
          </div>
        </section>

        <section
          className={`${section.section} ${styles['section--alt']}`}
          aria-label="Developer and feedback"
        >
          <div className={`container ${styles.split}`}>
            <div className={card.card}>
              <Deferred>
                <DeveloperLeadForm />
              </Deferred>
            </div>
            <div className={card.card}>
              <h2 id="feedback-title" className={styles['feedback-title']}>
                Send us feedback
              </h2>
              <p className="muted">Ideas, questions or something broken? We read everything.</p>
              <Deferred>
                <FeedbackForm />
              </Deferred>
            </div>
          </div>
        </section>
      </main>

      <SiteFooter />
    </div>
  );
}
