import { AppError, type Caller } from '@htm/service-kit';
import { FAVOURITE_MESSAGES, type FavouriteView } from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import {
  acceptedWorkOf,
  deleteFavourite,
  insertFavourite,
  isApprovedTester,
  isFavourite,
  listFavourites,
  type FavouriteRecord,
} from '../db/favourite.repository.js';

/** Favourite testers (#34 part 3): a poster keeps the testers they liked and can invite them first. */

function view(r: FavouriteRecord): FavouriteView {
  return {
    tester_id: r.testerId,
    name: r.name,
    rating_avg: r.ratingCount > 0 ? Math.round((r.ratingSum / r.ratingCount) * 10) / 10 : null,
    jobs_done: r.jobsDone,
  };
}

/** POST /api/favourites: only a tester whose work on one of the poster's jobs the poster accepted (403 not_your_tester). */
export async function addFavourite(
  deps: JobsDeps,
  caller: Caller,
  testerId: string,
): Promise<{ favourite: FavouriteView; created: boolean }> {
  if (!(await acceptedWorkOf(deps.db, caller.id, testerId)))
    throw AppError.forbidden(FAVOURITE_MESSAGES.notYourTester, 'not_your_tester');
  const created = await insertFavourite(deps.db, caller.id, testerId);
  const [row] = await listFavourites(deps.db, caller.id, testerId);
  return { favourite: view(row!), created };
}

export async function myFavourites(deps: JobsDeps, caller: Caller): Promise<FavouriteView[]> {
  return (await listFavourites(deps.db, caller.id)).map(view);
}

export async function removeFavourite(
  deps: JobsDeps,
  caller: Caller,
  testerId: string,
): Promise<void> {
  await deleteFavourite(deps.db, caller.id, testerId);
}

/**
 * Posting with invite_tester_id: it must be one of the poster's favourites (else 400
 * invite_not_favourite) who may take jobs now (else 400 invite_not_approved: a job held for a
 * tester the admin un-approved would wait for nobody).
 */
export async function assertInvitable(
  deps: JobsDeps,
  caller: Caller,
  testerId: string,
): Promise<void> {
  if (!(await isFavourite(deps.db, caller.id, testerId))) {
    throw AppError.invalid(
      FAVOURITE_MESSAGES.inviteNotFavourite,
      { invite_tester_id: [FAVOURITE_MESSAGES.inviteNotFavourite] },
      'invite_not_favourite',
    );
  }
  if (!(await isApprovedTester(deps.db, testerId))) {
    throw AppError.invalid(
      FAVOURITE_MESSAGES.inviteNotApproved,
      { invite_tester_id: [FAVOURITE_MESSAGES.inviteNotApproved] },
      'invite_not_approved',
    );
  }
}
