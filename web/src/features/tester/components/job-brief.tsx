import { useId, useState } from 'react';
import styles from './job-brief.module.css';
import { buttonClass } from '../../../components/button';

/** Briefs longer than this (or of more than two lines) are shortened until "more" is pressed. */
export const BRIEF_SHORT_CHARS = 180;

/** A job's "what to test": a long one shows its start and a "more" button that opens the rest. */
export function JobBrief({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const long = text.length > BRIEF_SHORT_CHARS || text.split('\n').length > 2;
  if (!long)
    return (
      <p className="prewrap job-card__brief-text" dir="auto">
        {text}
      </p>
    );
  return (
    <div className={styles['job-brief']}>
      <p
        id={id}
        className={`prewrap job-card__brief-text${open ? '' : ` ${styles['job-card__brief']}`}`}
        dir="auto"
      >
        {text}
      </p>
      <button
        type="button"
        className={buttonClass('link', 'sm')}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        {open ? 'less' : 'more'}
      </button>
    </div>
  );
}
