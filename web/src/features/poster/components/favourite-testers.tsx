import type { FavouriteView } from '@htm/contracts/favourites';
import { errorMessage } from '../../../lib/error-message';
import { useNotify } from '../../../lib/hooks';
import {
  useAddFavouriteMutation,
  useListFavouritesQuery,
  useRemoveFavouriteMutation,
} from '../api/favourites';
import { badgeClass } from '../../../components/badge';
import styles from './favourite-testers.module.css';
import { buttonClass } from '../../../components/button';

/** "4.5★ · 3 jobs": what the poster sees of a favourite. */
export function favouriteSummary(f: FavouriteView): string {
  const jobs = `${f.jobs_done} job${f.jobs_done === 1 ? '' : 's'} done`;
  return f.rating_avg == null
    ? `No ratings yet · ${jobs}`
    : `${f.rating_avg.toFixed(1)}★ average · ${jobs}`;
}

/** On the results of an accepted job: favourite its tester (or take them off the favourites). */
export function FavouriteToggle({ testerId }: { testerId: string }) {
  const { data: favourites = [], isLoading } = useListFavouritesQuery();
  const [add, adding] = useAddFavouriteMutation();
  const [remove, removing] = useRemoveFavouriteMutation();
  const { toast, status } = useNotify();
  const on = favourites.some((f) => f.tester_id === testerId);
  const busy = isLoading || adding.isLoading || removing.isLoading;

  const toggle = async () => {
    const res = on ? await remove(testerId) : await add(testerId);
    if ('error' in res && res.error) {
      toast(errorMessage(res.error, 'That did not work. Please try again.'), 'error');
      return;
    }
    status(
      on
        ? 'Removed from your favourite testers.'
        : 'Added to your favourite testers. You can invite them first when you post a job.',
    );
  };

  return (
    // Says what it is now in words ("Favourited"), not only by a star glyph.
    <p className={styles['favourite-toggle']}>
      {on ? (
        <>
          <span className={badgeClass('favourite')}>
            <span aria-hidden="true">★ </span>Favourited
          </span>{' '}
          <button
            type="button"
            className={buttonClass('ghost', 'sm')}
            disabled={busy}
            onClick={toggle}
          >
            Remove from favourites
          </button>
        </>
      ) : (
        <button
          type="button"
          className={buttonClass('secondary', 'sm')}
          disabled={busy}
          onClick={toggle}
        >
          <span aria-hidden="true">☆ </span>
          Favourite this tester
        </button>
      )}
    </p>
  );
}

/** The poster dashboard's small list of favourite testers, each with Remove (nothing when there are none). */
export function FavouriteTesters() {
  const { data: favourites = [] } = useListFavouritesQuery();
  const [remove, removing] = useRemoveFavouriteMutation();
  const { toast, status } = useNotify();
  if (favourites.length === 0) return null;

  const drop = async (f: FavouriteView) => {
    const res = await remove(f.tester_id);
    if ('error' in res && res.error)
      toast(errorMessage(res.error, 'Removing failed. Please try again.'), 'error');
    else status(`${f.name || 'The tester'} was removed from your favourite testers.`);
  };

  return (
    <section aria-labelledby="favourite-testers-title" className={styles['favourite-testers']}>
      <h2 id="favourite-testers-title">Favourite testers</h2>
      <ul className={styles['favourite-testers__list']}>
        {favourites.map((f) => (
          <li key={f.tester_id} className={styles['favourite-testers__item']}>
            <span>
              <strong>{f.name || 'A tester'}</strong>{' '}
              <span className="muted">{favouriteSummary(f)}</span>
            </span>
            <button
              type="button"
              className={buttonClass('ghost', 'sm')}
              disabled={removing.isLoading}
              onClick={() => drop(f)}
              aria-label={`Remove ${f.name || 'this tester'} from favourite testers`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
