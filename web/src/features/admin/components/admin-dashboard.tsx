import { useEffect, useState, type ReactNode } from 'react';
import { Tabs } from '../../../components/tabs';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { UserDto as User } from '@htm/contracts/identity';
import { useListAllJobsQuery } from '../api/list-all-jobs';
import { ActionsTab } from './actions-tab';
import { HistoryTab } from './history-tab';
import { InsightsTab } from './insights-tab';
import { ManageTab } from './manage-tab';
import { OverviewTab } from './overview-tab';
import { PrivacyTab } from './privacy-tab';
import pageStyles from '../../../components/page.module.css';

/** Admin dashboard: Overview, Manage, Actions, History, Insights (charts). `postJob` is the poster's 'Post New Job' launcher. */
export default function AdminDashboard({ user, postJob }: { user: User; postJob?: ReactNode }) {
  const [tab, setTab] = useState('overview');
  const { data: jobs = [], error, isLoading } = useListAllJobsQuery();
  const { toast } = useNotify();
  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load admin jobs'));
  }, [error, toast]);
  return (
    <div className="dashboard">
      <div className={pageStyles.dashboard__head}>
        <div>
          <h1>Admin</h1>
          <p className="muted">Signed in as {user.email}</p>
        </div>
        {postJob}
      </div>
      <Tabs
        label="Admin sections"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: 'overview', label: 'Overview' },
          { id: 'manage', label: 'Manage' },
          { id: 'actions', label: 'Actions' },
          { id: 'history', label: 'History' },
          { id: 'insights', label: 'Insights' },
          { id: 'privacy', label: 'Privacy' },
        ]}
      >
        {tab === 'overview' ? <OverviewTab jobs={jobs} /> : null}
        {tab === 'manage' ? <ManageTab jobs={jobs} loading={isLoading} /> : null}
        {tab === 'actions' ? <ActionsTab /> : null}
        {tab === 'history' ? <HistoryTab jobs={jobs} /> : null}
        {tab === 'insights' ? <InsightsTab /> : null}
        {tab === 'privacy' ? <PrivacyTab /> : null}
      </Tabs>
    </div>
  );
}
