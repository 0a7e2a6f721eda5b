import { rawRequest } from '../../../lib/base-query';

/**
 * POST /api/auth/session: trades the single-use #session_id for an access token (and sets the
 * refresh cookie). A plain call rather than an RTK Query endpoint: it runs on the landing
 * page before the API slice is loaded, and its answer is not cached data.
 */
export async function exchangeSession(sessionId: string) {
  return rawRequest(
    { url: '/auth/session', method: 'POST', body: { session_id: sessionId } },
    null,
  );
}
