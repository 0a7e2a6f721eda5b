import { lazy, Suspense, useEffect, useState } from 'react';
import { Route, Routes, useSearchParams } from 'react-router';
import { forgetReturnTo } from '../lib/return-to';
import { useDispatch } from 'react-redux';
import { ErrorBoundary } from '../components/error-boundary';
import { FeedbackForm } from '../components/feedback-form';
import { Loading } from '../components/loading';
import { AccountMenu } from '../components/account-menu';
import { LiveIndicator } from '../components/live-indicator';
import { Modal } from '../components/modal';
import { StatusBar } from '../components/status-bar';
import { resetApiState } from '../lib/api';
import { errorMessage } from '../lib/error-message';
import { useLive, type LiveState } from '../lib/live';
import { accountDeleted, loggedOut } from '../lib/session-slice';
import { clearTokens } from '../lib/tokens';
import { announceLogout } from '../lib/session-sync';
import type { UserDto as User } from '@htm/contracts/identity';
import { useGetMeQuery } from '../features/auth/api/get-me';
import { useLogoutMutation } from '../features/auth/api/logout';
import { ChooseRole } from '../features/auth/components/choose-role';
import { buttonClass } from '../components/button';
import brand from '../components/brand.module.css';
import { badgeClass } from '../components/badge';
import panel from '../components/panel.module.css';
import pageStyles from '../components/page.module.css';
import styles from './shell.module.css';
import errorStyles from '../components/error-boundary.module.css';
import { SkipLink } from '../components/skip-link';

const PosterDashboard = lazy(() => import('../features/poster/components/poster-dashboard'));
const SettingsPage = lazy(() => import('../features/poster/components/settings-page'));
const PostJobLauncher = lazy(() => import('../features/poster/components/post-job-launcher'));
const TesterDashboard = lazy(() => import('../features/tester/components/tester-dashboard'));
const AdminDashboard = lazy(() => import('../features/admin/components/admin-dashboard'));
const EmailPreferencesModal = lazy(
  () => import('../features/notifications/components/email-preferences-modal'),
);
const SignInsModal = lazy(() => import('../features/auth/components/sign-ins-modal'));
const YourDataModal = lazy(() => import('../features/account/components/your-data-modal'));

const TYPE_LABEL: Record<string, string> = {
  poster: 'Site owner',
  tester: 'Tester',
  admin: 'Admin',
};

/**
 * Where the header says the user is: the location (USA or PR, as the specification shows it); a
 * tester in Canada, whose recorded market is not where they are, shows Canada.
 */
export function placeOf(user: User): string | null {
  if (user.type === 'tester' && user.country === 'CA') return 'Canada';
  return user.location;
}

function Header({
  user,
  onLogout,
  live,
  onEmails,
  onSignIns,
  onYourData,
}: {
  user: User;
  live: LiveState;
  onLogout: () => void;
  onEmails: () => void;
  onSignIns: () => void;
  onYourData: () => void;
}) {
  return (
    <header className={styles['app-header']}>
      <div className={`container ${styles['app-header__inner']}`}>
        <a
          className={`${brand.brand} ${styles['app-header__brand']}`}
          href="/dashboard"
          aria-label="HumanTest dashboard"
        >
          <span className={brand.brand__mark} aria-hidden="true">
            $1
          </span>
          <span className={styles['app-header__brand-name']}>HumanTest</span>
        </a>
        <div className={styles['app-header__user']}>
          <span className={styles['app-header__name']}>{user.name || user.email}</span>
          {user.type ? (
            <span className={`${badgeClass()} ${styles['badge--type']}`}>
              {TYPE_LABEL[user.type] ?? user.type}
            </span>
          ) : null}
          {placeOf(user) ? <span className="muted app-header__loc">{placeOf(user)}</span> : null}
          <LiveIndicator state={live} />
        </div>
        <AccountMenu
          items={[
            { label: 'E-mail settings', onSelect: onEmails },
            { label: 'Sign-ins', onSelect: onSignIns },
            { label: 'Your data', onSelect: onYourData },
          ]}
        />
        {/* Beside the menu at every width: Logout is always in view. */}
        <button
          type="button"
          className={`${buttonClass('ghost', 'sm')} ${styles['app-header__logout']}`}
          onClick={onLogout}
        >
          Logout
        </button>
      </div>
    </header>
  );
}

function Dashboard({ user }: { user: User }) {
  if (user.type === 'admin') {
    return (
      <ErrorBoundary label="Admin error">
        <AdminDashboard user={user} postJob={<PostJobLauncher />} />
      </ErrorBoundary>
    );
  }
  return (
    <ErrorBoundary label="Dashboard error">
      {user.type === 'tester' ? <TesterDashboard user={user} /> : <PosterDashboard user={user} />}
    </ErrorBoundary>
  );
}

/** The signed-in shell: feedback banner, header, status bar, then a dashboard by user type. */
export default function Shell() {
  const { data: user, error, isLoading, refetch } = useGetMeQuery();
  const [logout] = useLogoutMutation();
  const dispatch = useDispatch();
  const [feedbackOpen, setFeedbackOpen] = useState(false);
  const [emailsOpen, setEmailsOpen] = useState(false);
  const [signInsOpen, setSignInsOpen] = useState(false);
  // The data-download e-mail links to /dashboard?open=your-data: the dialog opens by itself.
  const [params, setParams] = useSearchParams();
  const [yourDataOpen, setYourDataOpen] = useState(() => params.get('open') === 'your-data');
  const closeYourData = () => {
    setYourDataOpen(false);
    if (params.get('open'))
      setParams(
        (p) => {
          p.delete('open');
          return p;
        },
        { replace: true },
      );
  };
  // Signed in and on the dashboard: a link remembered across the sign-in has served.
  useEffect(() => forgetReturnTo(), []);
  // One live connection per signed-in tab, once the role is chosen.
  const live = useLive(user?.type ? user : undefined);

  /**
   * "Delete my account" confirmed: the server has ended every sign-in. Forget the tokens first (so
   * no request of this tab turns into "Session expired"); the routes then say when it happens.
   */
  const onAccountDeleted = (dueAt: string) => {
    clearTokens();
    announceLogout();
    dispatch(resetApiState());
    dispatch(accountDeleted(dueAt));
  };

  const doLogout = async () => {
    try {
      await logout();
    } finally {
      announceLogout(); // other tabs of this browser sign out too
      dispatch(resetApiState());
      dispatch(loggedOut()); // the /dashboard route then sends the browser home
    }
  };

  if (isLoading) return <Loading label="Loading your dashboard…" />;
  if (error || !user) {
    return (
      <main className={`container ${pageStyles.page}`} id="main">
        <div className={`${panel.panel} ${errorStyles['error-screen']}`} role="alert">
          <h2>Dashboard error: {errorMessage(error, 'Dashboard loading failed')}</h2>
          <button type="button" className={buttonClass('primary')} onClick={() => refetch()}>
            Retry
          </button>
        </div>
      </main>
    );
  }
  if (!user.type) return <ChooseRole name={user.name} onLogout={doLogout} />;

  return (
    <div className="app">
      <SkipLink />
      <aside className={styles['feedback-banner']} aria-label="Beta feedback">
        <span>We're in beta — tell us what to improve.</span>
        <button type="button" className={buttonClass('link')} onClick={() => setFeedbackOpen(true)}>
          Send Feedback
        </button>
      </aside>
      <Header
        user={user}
        live={live}
        onLogout={doLogout}
        onEmails={() => setEmailsOpen(true)}
        onSignIns={() => setSignInsOpen(true)}
        onYourData={() => setYourDataOpen(true)}
      />
      <StatusBar />
      <main className={`container ${pageStyles.page}`} id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Routes>
            {/* A poster's (or the admin's) webhooks and issue trackers. */}
            {user.type === 'poster' || user.type === 'admin' ? (
              <Route
                path="settings"
                element={
                  <ErrorBoundary label="Dashboard error">
                    <SettingsPage />
                  </ErrorBoundary>
                }
              />
            ) : null}
            <Route path="*" element={<Dashboard user={user} />} />
          </Routes>
        </Suspense>
      </main>
      {feedbackOpen ? (
        <Modal title="Send Feedback" onClose={() => setFeedbackOpen(false)}>
          <FeedbackForm initialEmail={user.email} />
        </Modal>
      ) : null}
      {emailsOpen ? (
        <Suspense fallback={null}>
          <EmailPreferencesModal user={user} onClose={() => setEmailsOpen(false)} />
        </Suspense>
      ) : null}
      {yourDataOpen ? (
        <Suspense fallback={null}>
          <YourDataModal user={user} onClose={closeYourData} onDeleted={onAccountDeleted} />
        </Suspense>
      ) : null}
      {signInsOpen ? (
        <Suspense fallback={null}>
          <SignInsModal onClose={() => setSignInsOpen(false)} onSignedOut={doLogout} />
        </Suspense>
      ) : null}
    </div>
  );
}
