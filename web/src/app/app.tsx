import { lazy, Suspense, useState } from 'react';
import { Provider } from 'react-redux';
import { BrowserRouter, Link, Navigate, Route, Routes, useLocation } from 'react-router';
import { rememberReturnTo, returnTo } from '../lib/return-to';
import { Loading } from '../components/loading';
import { Toaster } from '../components/toaster';
import { useSharedSelector } from '../lib/hooks';
import { LandingPage } from '../features/landing/components/landing-page';
import { useHydrated } from '../features/landing/use-hydrated';
import { SignIn } from '../features/auth/components/sign-in';
import { TesterLogin } from '../features/auth/components/tester-login';
import { useSessionBootstrap } from './session-bootstrap';
import type { AppStore } from './store';
import { buttonClass } from '../components/button';
import { AuthCard } from '../components/auth-card';

// Everything behind sign-in and the payment return pages load on demand.
const Shell = lazy(() => import('./shell'));
const PaymentSuccess = lazy(() => import('../features/payment-return/components/payment-success'));
const PaymentCancel = lazy(() => import('../features/payment-return/components/payment-cancel'));
const AccountDeleted = lazy(() => import('../features/auth/components/account-deleted'));
const ExampleReport = lazy(() => import('../features/info/components/example-report'));
const TermsPage = lazy(() =>
  import('../features/info/components/policy-pages').then((m) => ({ default: m.TermsPage })),
);
const PrivacyPage = lazy(() =>
  import('../features/info/components/policy-pages').then((m) => ({ default: m.PrivacyPage })),
);
const RefundPage = lazy(() =>
  import('../features/info/components/policy-pages').then((m) => ({ default: m.RefundPage })),
);

function NotFound() {
  return (
    <AuthCard>
      <h1>Page not found</h1>
      <p className="muted">That page does not exist.</p>
      <Link className={buttonClass('primary', 'block')} to="/">
        Back to Home
      </Link>
    </AuthCard>
  );
}

/** Signed out on a dashboard link (an e-mail's ?job= or ?tab=): kept for after the sign-in. */
function ToSignIn({ to }: { to: string }) {
  const location = useLocation();
  useState(() => rememberReturnTo(location.pathname + location.search));
  return <Navigate to={to} replace />;
}

function AppRoutes() {
  const { authError, exchanging, restoring } = useSessionBootstrap();
  const session = useSharedSelector((s) => s.session);
  // The prerendered landing page is the signed-out one: hydrate it as such, then show a
  // signed-in visitor's "Go to Dashboard" (one re-render right after hydration).
  const hydrated = useHydrated();
  if (exchanging) return <Loading label="Signing you in…" />;
  // While a session is restored from the refresh cookie, the screens that depend on it wait.
  const starting =
    restoring && !session.signedIn ? <Loading label="Starting your session…" /> : null;
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route
          path="/"
          element={<LandingPage signedIn={hydrated && session.signedIn} authError={authError} />}
        />
        <Route
          path="/login"
          element={
            starting ??
            (session.signedIn ? (
              <Navigate to={returnTo()} replace />
            ) : (
              <SignIn notice={session.notice ?? authError?.message} />
            ))
          }
        />
        <Route
          path="/login/tester"
          element={
            starting ??
            (session.signedIn ? (
              <Navigate to={returnTo()} replace />
            ) : (
              <TesterLogin notice={authError?.message ?? session.notice} code={authError?.code} />
            ))
          }
        />
        <Route
          path="/dashboard/*"
          element={
            starting ??
            (session.signedIn ? (
              <Shell />
            ) : session.deletionDue ? (
              <Navigate
                to={`/account-deleted?on=${encodeURIComponent(session.deletionDue)}`}
                replace
              />
            ) : (
              <ToSignIn to={session.lastExit === 'logout' ? '/' : '/login'} />
            ))
          }
        />
        <Route path="/payment/success" element={<PaymentSuccess />} />
        <Route path="/payment/cancel" element={<PaymentCancel />} />
        <Route path="/account-deleted" element={<AccountDeleted />} />
        <Route path="/example-report" element={<ExampleReport />} />
        <Route path="/terms" element={<TermsPage />} />
        <Route path="/privacy" element={<PrivacyPage />} />
        <Route path="/refunds" element={<RefundPage />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </Suspense>
  );
}

/** The routes and toasts, inside a router: BrowserRouter here, StaticRouter in src/prerender.tsx. */
export function AppContent() {
  return (
    <>
      <AppRoutes />
      <Toaster />
    </>
  );
}

export function App({ store }: { store: AppStore }) {
  return (
    <Provider store={store}>
      <BrowserRouter>
        <AppContent />
      </BrowserRouter>
    </Provider>
  );
}
