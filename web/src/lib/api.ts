import { createApi } from '@reduxjs/toolkit/query/react';
import { baseQueryWithReauth } from './base-query';
import { dynamicMiddleware, rootReducer } from './store-registry';

/** The one API slice. Features add endpoints with `api.injectEndpoints`. */
export const api = createApi({
  reducerPath: 'api',
  baseQuery: baseQueryWithReauth,
  // The live channel keeps screens current; refetching on focus and on reconnect is the second line.
  refetchOnFocus: true,
  refetchOnReconnect: true,
  tagTypes: [
    'Me',
    'Job',
    'Submission',
    'AvailableJob',
    'MyJob',
    'Earnings',
    'Standing',
    'PayoutAccount',
    'Overview',
    'Tester',
    'Waitlist',
    'Lead',
    'AdminJob',
    'Audit',
    'NotificationPreferences',
    'DeadLetters',
    'SignIn',
    'WebhookEndpoint',
    'Tracker',
    'Privacy',
    'AdminPrivacy',
    'Appeal',
    'Favourite',
    'SiteCheck',
    'Pack',
  ],
  endpoints: () => ({}),
});

// Loaded on demand: plug the cache reducer and its middleware into the running store.
rootReducer.inject(api);
dynamicMiddleware.addMiddleware(api.middleware);

/** Clears every cached answer (sign-out, auth-expired, a new sign-in). */
export const resetApiState = () => api.util.resetApiState();
