import { useState, type FormEvent } from 'react';
import { JOB_LIMITS, rateJobBodySchema } from '@htm/contracts/jobs';
import { Field, FormMessage } from '../../../components/field';
import { errorMessage, errorStatus, serverFieldErrors } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import type { JobView as Job } from '@htm/contracts/jobs';
import { issuesByField } from '../../../lib/zod-errors';
import { useRateJobMutation } from '../api/rate-job';
import { Form } from '../../../components/form';
import styles from './rate-tester.module.css';

const STARS = [1, 2, 3, 4, 5] as const;

/** On the results screen of a completed job: the poster rates the tester once (stars + comment). */
export function RateTester({ job }: { job: Job }) {
  const [stars, setStars] = useState<number | null>(null);
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [rate, { isLoading, data }] = useRateJobMutation();
  const { status } = useNotify();
  const rating = job.rating ?? data?.rating ?? null;

  if (rating) {
    return (
      <section className="rating" aria-label="Your rating">
        <h3>Your rating</h3>
        <p>
          <span aria-hidden="true">
            {'★'.repeat(rating.stars)}
            {'☆'.repeat(5 - rating.stars)}
          </span>{' '}
          <span>You rated this tester {rating.stars} out of 5.</span>
        </p>
        {rating.comment ? <p className="prewrap muted">{rating.comment}</p> : null}
      </section>
    );
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    const parsed = rateJobBodySchema.safeParse({ stars: stars ?? undefined, comment });
    if (!parsed.success) {
      setErrors(issuesByField(parsed.error.issues));
      return;
    }
    setErrors({});
    const res = await rate({ jobId: job.id, ...parsed.data });
    if ('error' in res && res.error) {
      const byField = errorStatus(res.error) === 400 ? serverFieldErrors(res.error) : {};
      if (Object.keys(byField).length) setErrors(byField);
      else setFormError(errorMessage(res.error, 'Rating failed. Please try again.'));
      return;
    }
    status('Thanks! Your rating was saved.');
  };

  return (
    <Form className="form rating" onSubmit={submit} noValidate aria-label="Rate the tester">
      <fieldset className="choice-group">
        <legend>Rate the tester</legend>
        {/* Stars drawn as stars; each is a native radio (arrow keys move, the name says "3 stars"). */}
        <div className={styles.rating__stars}>
          {STARS.map((n) => {
            const on = stars !== null && n <= stars;
            return (
              <label className={`${styles.star}${on ? ` ${styles['star--on']}` : ''}`} key={n}>
                <input
                  className="sr-only"
                  type="radio"
                  name="stars"
                  value={n}
                  checked={stars === n}
                  onChange={() => setStars(n)}
                  aria-label={`${n} ${n === 1 ? 'star' : 'stars'}`}
                />
                <span className={styles.star__glyph} aria-hidden="true">
                  {on ? '★' : '☆'}
                </span>
              </label>
            );
          })}
        </div>
        {errors.stars ? <div className="field__error">{errors.stars}</div> : null}
      </fieldset>
      <Field
        label="Comment"
        optional
        error={errors.comment}
        hint={`${comment.length}/${JOB_LIMITS.ratingCommentMax}`}
      >
        <textarea rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
      </Field>
      <FormMessage error={formError} />
      <div className="form__actions">
        <button type="submit" className="btn btn--primary" disabled={isLoading}>
          {isLoading ? 'Saving…' : 'Save rating'}
        </button>
      </div>
    </Form>
  );
}
