import { z } from 'zod';

/** Favourite testers ("Fair and fast for testers", #34 part 3): a poster's testers they liked. */
export const FAVOURITE_MESSAGES = {
  testerId: 'Choose the tester to favourite (tester_id)',
  notYourTester: 'You can favourite only a tester whose work on one of your jobs you accepted.',
  inviteNotFavourite:
    'invite_tester_id must be one of your favourite testers. Favourite the tester on the results of a job they did for you first.',
  inviteNotApproved:
    'This tester cannot take jobs right now (their approval was withdrawn), so they cannot be invited. Post the job without inviting them.',
} as const;

/** POST /api/favourites */
export const favouriteBodySchema = z.object({
  tester_id: z
    .string({ error: FAVOURITE_MESSAGES.testerId })
    .trim()
    .min(1, { error: FAVOURITE_MESSAGES.testerId })
    .max(200, { error: FAVOURITE_MESSAGES.testerId }),
});
export type FavouriteBody = z.infer<typeof favouriteBodySchema>;

/** A favourite tester as the poster sees them. */
export const favouriteViewSchema = z.object({
  tester_id: z.string(),
  name: z.string(),
  /** The tester's average stars (one decimal), or null before their first rating. */
  rating_avg: z.number().nullable(),
  /** Jobs the tester completed (for any poster). */
  jobs_done: z.number().int(),
});
export type FavouriteView = z.infer<typeof favouriteViewSchema>;

/** GET /api/favourites */
export const favouritesResponseSchema = z.object({ favourites: z.array(favouriteViewSchema) });
export type FavouritesResponse = z.infer<typeof favouritesResponseSchema>;
/** POST /api/favourites (201 new, 200 already a favourite) */
export const favouriteResponseSchema = z.object({ favourite: favouriteViewSchema });
