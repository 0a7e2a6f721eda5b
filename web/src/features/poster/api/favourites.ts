import type { FavouriteView } from '@htm/contracts/favourites';
import { api } from '../../../lib/api';

const favouritesApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/favourites: the poster's favourite testers. */
    listFavourites: build.query<FavouriteView[], void>({
      query: () => ({ url: '/favourites' }),
      transformResponse: (r: { favourites?: FavouriteView[] } | undefined) => r?.favourites ?? [],
      providesTags: ['Favourite'],
    }),
    /** POST /api/favourites */
    addFavourite: build.mutation<{ favourite: FavouriteView }, string>({
      query: (testerId) => ({ url: '/favourites', method: 'POST', body: { tester_id: testerId } }),
      invalidatesTags: ['Favourite'],
    }),
    /** DELETE /api/favourites/{tester_id} */
    removeFavourite: build.mutation<void, string>({
      query: (testerId) => ({ url: `/favourites/${testerId}`, method: 'DELETE' }),
      invalidatesTags: ['Favourite'],
    }),
  }),
});

export const { useListFavouritesQuery, useAddFavouriteMutation, useRemoveFavouriteMutation } =
  favouritesApi;
