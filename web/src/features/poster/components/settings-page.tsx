import { Link } from 'react-router';
import { TrackersSettings } from './trackers-settings';
import { WebhooksSettings } from './webhooks-settings';
import styles from './settings-page.module.css';

/**
 * /dashboard/settings: the developer settings (webhooks, GitHub and Jira), one click from the
 * dashboard and out of a new owner's way there. A real URL: reload and Back work.
 */
export default function SettingsPage() {
  return (
    <div className={styles.page}>
      <div className={styles.head}>
        <h1>Settings and integrations</h1>
        <Link to="/dashboard">← Back to your jobs</Link>
      </div>
      <p className="muted">
        Send your findings where your team works: to your own server as they happen (webhooks), or
        as issues in GitHub or Jira from your results.
      </p>
      <WebhooksSettings />
      <TrackersSettings />
    </div>
  );
}
