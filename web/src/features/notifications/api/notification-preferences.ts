import type {
  NotificationPreferences,
  NotificationPreferencesBody,
  NotificationPreferencesResponse,
} from '@htm/contracts/notifications';
import { api } from '../../../lib/api';

const preferencesApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/notifications/preferences: which e-mails the signed-in user gets. */
    getNotificationPreferences: build.query<NotificationPreferences, void>({
      query: () => ({ url: '/notifications/preferences' }),
      transformResponse: (r: NotificationPreferencesResponse) => r.preferences,
      providesTags: ['NotificationPreferences'],
    }),
    /** PATCH /api/notifications/preferences: switch kinds on or off. */
    updateNotificationPreferences: build.mutation<
      NotificationPreferences,
      NotificationPreferencesBody
    >({
      query: (body) => ({ url: '/notifications/preferences', method: 'PATCH', body }),
      transformResponse: (r: NotificationPreferencesResponse) => r.preferences,
      invalidatesTags: ['NotificationPreferences'],
    }),
  }),
});

export const { useGetNotificationPreferencesQuery, useUpdateNotificationPreferencesMutation } =
  preferencesApi;
