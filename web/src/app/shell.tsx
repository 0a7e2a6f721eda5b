import { lazy, Suspense, useEffect, useState } from 'react';
import { forgetReturnTo } from '../lib/return-to';
import { useDispatch } from 'react-redux';
import { ErrorBoundary } from '../components/error-boundary';
import { FeedbackForm } from '../components/feedback-form';
import { Loading } from '../components/loading';
import { LiveIndicator } from '../components/live-indicator';
import { Modal } from '../components/modal';
import { StatusBar } from '../components/status-bar';
import { resetApiState } from '../lib/api';
import { errorMessage } from '../lib/error-message';
import { useLive, type LiveState } from '../lib/live';
import { loggedOut } from '../lib/session-slice';
import { announceLogout } from '../lib/session-sync';
import type { UserDto as User } from '@htm/contracts/identity';
import { useGetMeQuery } from '../features/auth/api/get-me';
import { useLogoutMutation } from '../features/auth/api/logout';
import { ChooseRole } from '../features/auth/components/choose-role';

const PosterDashboard = lazy(() => import('../features/poster/components/poster-dashboard'));
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

const COUNTRY_LABEL: Record<string, string> = { US: 'US', PR: 'PR', CA: 'Canada' };

/**
 * Where the header says the user is: a tester's country (what "Update Your Profile" changes;
 * a Canadian tester's location cannot follow it), else the location.
 */
export function placeOf(user: User): string | null {
  if (user.type === 'tester' && user.country) return COUNTRY_LABEL[user.country] ?? user.country;
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
    <header className="app-header">
      <div className="container app-header__inner">
        <a className="brand" href="/dashboard" aria-label="HumanTest dashboard">
          <span className="brand__mark" aria-hidden="true">
            $1
          </span>
          <span className="app-header__brand-name">HumanTest</span>
        </a>
        <div className="app-header__user">
          <span className="app-header__name">{user.name || user.email}</span>
          {user.type ? (
            <span className="badge badge--type">{TYPE_LABEL[user.type] ?? user.type}</span>
          ) : null}
          {placeOf(user) ? <span className="muted app-header__loc">{placeOf(user)}</span> : null}
          <button type="button" className="btn btn--ghost btn--sm" onClick={onEmails}>
            E-mail settings
          </button>
          <button type="button" className="btn btn--ghost btn--sm" onClick={onSignIns}>
            Sign-ins
          </button>
          <button type="button" className="btn btn--ghost btn--sm" onClick={onYourData}>
            Your data
          </button>
          <LiveIndicator state={live} />
        </div>
        {/* Outside the strip above, which scrolls sideways on a phone: Logout is always in view. */}
        <button
          type="button"
          className="btn btn--ghost btn--sm app-header__logout"
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
  const [yourDataOpen, setYourDataOpen] = useState(false);
  const [deletedMessage, setDeletedMessage] = useState<string | null>(null);
  // Signed in and on the dashboard: a link remembered across the sign-in has served.
  useEffect(() => forgetReturnTo(), []);
  // One live connection per signed-in tab, once the role is chosen.
  const live = useLive(user?.type ? user : undefined);

  const doLogout = async () => {
    try {
      await logout();
    } finally {
      announceLogout(); // other tabs of this browser sign out too
      dispatch(resetApiState());
      dispatch(loggedOut()); // the /dashboard route then sends the browser home
    }
  };

  if (deletedMessage) {
    // Every sign-in has ended: say what happens next, then leave.
    return (
      <main className="container page" id="main">
        <div className="panel" role="status">
          <h2>Your account is scheduled for deletion</h2>
          <p>{deletedMessage}</p>
          <button type="button" className="btn btn--primary" onClick={doLogout}>
            Go to the home page
          </button>
        </div>
      </main>
    );
  }
  if (isLoading) return <Loading label="Loading your dashboard…" />;
  if (error || !user) {
    return (
      <main className="container page" id="main">
        <div className="panel error-screen" role="alert">
          <h2>Dashboard error: {errorMessage(error, 'Dashboard loading failed')}</h2>
          <button type="button" className="btn btn--primary" onClick={() => refetch()}>
            Retry
          </button>
        </div>
      </main>
    );
  }
  if (!user.type) return <ChooseRole name={user.name} onLogout={doLogout} />;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="feedback-banner" aria-label="Beta feedback">
        <span>We're in beta — tell us what to improve.</span>
        <button type="button" className="btn btn--link" onClick={() => setFeedbackOpen(true)}>
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
      <main className="container page" id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Dashboard user={user} />
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
          <YourDataModal
            user={user}
            onClose={() => setYourDataOpen(false)}
            onDeleted={setDeletedMessage}
          />
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
