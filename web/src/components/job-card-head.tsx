import type { JobView } from '@htm/contracts/jobs';
import { shortId } from '../lib/format';
import jobCard from './job-card.module.css';

/** A job card's title and its "#id · site" line (the poster's and the tester's lists). */
export function JobCardHead({ job }: { job: Pick<JobView, 'id' | 'title' | 'url'> }) {
  return (
    <>
      <h3 className={jobCard['job-card__title']}>{job.title}</h3>
      <p className={jobCard['job-card__meta']}>
        <span className="mono">#{shortId(job.id)}</span> ·{' '}
        <a href={job.url} target="_blank" rel="noreferrer">
          {job.url}
        </a>
      </p>
    </>
  );
}
