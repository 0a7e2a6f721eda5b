import { identityMessages } from '@htm/contracts/identity';
import { APPEAL_WINDOW_MS, RULE_WORDS } from '@htm/contracts/marketplace';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Tabs } from '../../../components/tabs';
import { featureFlags } from '../../../lib/config';
import type { UserDto as User } from '@htm/contracts/identity';
import { AvailableJobs } from './available-jobs';
import { EarningsTab } from './earnings-tab';
import { LevelCard } from './level-card';
import { MyJobs } from './my-jobs';
import { ProfileModal } from './profile-modal';
import { StrikesPanel } from './strikes-panel';
import { SessionChecksPanel } from './session-checks-panel';
import { buttonClass } from '../../../components/button';
import notice from '../../../components/notice.module.css';
import pageStyles from '../../../components/page.module.css';
import panel from '../../../components/panel.module.css';
import styles from './tester-dashboard.module.css';

/** Tester dashboard: pending approval, paused (released by strikes: reasons and appeals), or tabs Available Jobs / My Jobs / Earnings. */
const TABS = ['available', 'mine', 'earnings'];

const APPEAL_WINDOW_DAYS = Math.round(APPEAL_WINDOW_MS / 86_400_000);

/** The tab an e-mail link opens: ?tab=earnings, or My Jobs for ?job=ID (a job of theirs). */
function linkedTab(params: URLSearchParams): string {
  const tab = params.get('tab');
  if (tab && TABS.includes(tab)) return tab;
  return params.get('job') ? 'mine' : 'available';
}

export default function TesterDashboard({ user }: { user: User }) {
  // The tab is in the URL (?tab=): reload and Back keep it; ?job= shows that job under My Jobs.
  const [params, setParams] = useSearchParams();
  const tab = linkedTab(params);
  const setTab = (next: string, job?: string) =>
    setParams((p) => {
      p.set('tab', next);
      if (job) p.set('job', job);
      else p.delete('job');
      return p;
    });
  const [profileOpen, setProfileOpen] = useState(false);
  const profile = profileOpen ? (
    <ProfileModal user={user} onClose={() => setProfileOpen(false)} />
  ) : null;

  if (!user.approved) {
    return (
      <div className={`${panel.panel} ${styles.pending}`}>
        {user.released ? (
          <>
            <h1>Your tester account is paused</h1>
            <p>{identityMessages.testerReleased}</p>
            <p>
              Each strike below says why it was given. You can appeal each one once, within{' '}
              {APPEAL_WINDOW_DAYS} days. When an admin accepts an appeal the strike is removed, and
              once you are under the strike limit your account is active again; we'll tell you here
              and by e-mail.
            </p>
          </>
        ) : (
          <>
            <h1>Your tester account is pending approval</h1>
            <p>
              Only testers an admin has approved can take jobs, and yours is not approved at the
              moment. We'll e-mail you as soon as an admin approves it.
            </p>
          </>
        )}
        {user.released ? <StrikesPanel paused /> : null}
        <button
          type="button"
          className={buttonClass('secondary')}
          onClick={() => setProfileOpen(true)}
        >
          Update Your Profile
        </button>
        {profile}
      </div>
    );
  }

  return (
    <div className="dashboard">
      <div className={pageStyles.dashboard__head}>
        <div>
          <h1>Tester dashboard</h1>
          <p className="muted">
            Country: {user.country ?? 'not set'} · earn {RULE_WORDS.testerShare} per accepted job
          </p>
          <p className="muted" aria-label="Your rating">
            {user.rating_count
              ? `Your rating: ${user.rating_avg?.toFixed(1)} ★ from ${user.rating_count} rating${user.rating_count === 1 ? '' : 's'}`
              : 'Your rating: no ratings yet'}
          </p>
        </div>
        <button
          type="button"
          className={buttonClass('secondary')}
          onClick={() => setProfileOpen(true)}
        >
          Update Your Profile
        </button>
      </div>
      {featureFlags.enable_country_cta && !user.country ? (
        <div className={notice.notice}>
          Set your country to see the jobs open to you.{' '}
          <button
            type="button"
            className={buttonClass('link')}
            onClick={() => setProfileOpen(true)}
          >
            Set country
          </button>
        </div>
      ) : null}
      <Tabs
        label="Tester sections"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: 'available', label: 'Available Jobs' },
          { id: 'mine', label: 'My Jobs' },
          { id: 'earnings', label: 'Earnings' },
        ]}
      >
        {/* The panel's heading (its cards' titles are h3), for the outline a screen reader reads. */}
        <h2 className="sr-only">
          {tab === 'available' ? 'Available Jobs' : tab === 'mine' ? 'My Jobs' : 'Earnings'}
        </h2>
        {tab === 'available' ? (
          // A claimed job opens under My Jobs, its card in view.
          <AvailableJobs onClaimed={(jobId) => setTab('mine', jobId)} />
        ) : tab === 'mine' ? (
          <>
            <MyJobs />
            {/* Reports the checks held or flagged, each reason in plain words. */}
            <SessionChecksPanel />
          </>
        ) : (
          <>
            <EarningsTab />
            {/* The tester's standing: below the work, never above it or under every job. */}
            <LevelCard />
            <StrikesPanel />
          </>
        )}
      </Tabs>
      {profile}
    </div>
  );
}
