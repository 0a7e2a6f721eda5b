/**
 * The live channel in the browser: one EventSource per signed-in tab (GET /api/live with a
 * single-use ticket). Messages only invalidate RTK Query tags (the cache refetches what is on
 * screen); a few also show a short notice. On a drop the tab reconnects with backoff and
 * resumes after the last message id it saw.
 */
import { useEffect, useRef, useState } from 'react';
import { useDispatch } from 'react-redux';
import type { LiveTicketResponse } from '@htm/contracts/live';
import { api } from './api';
import { API_BASE } from './config';
import { toastAdded } from './ui-slice';
import type { UserDto as User } from '@htm/contracts/identity';

const liveApi = api.injectEndpoints({
  endpoints: (build) => ({
    createLiveTicket: build.mutation<LiveTicketResponse, void>({
      query: () => ({ url: '/live/ticket', method: 'POST' }),
    }),
  }),
});

export const { useCreateLiveTicketMutation } = liveApi;

type TagType = Parameters<typeof api.util.invalidateTags>[0][number];
type Tag = Exclude<TagType, null | undefined | false>;

/** Every tag the live channel may touch (a `resync` reloads them all). */
const ALL_LIVE_TAGS: Tag[] = [
  'Job',
  'AdminJob',
  'MyJob',
  'AvailableJob',
  'Earnings',
  'Overview',
  'Submission',
  'Tester',
  'Waitlist',
  'Lead',
  'Appeal',
];

/** The admin's lists an `admin` message names (feedback has no list on screen). */
const ADMIN_LIST_TAGS: Record<string, Tag | undefined> = {
  testers: 'Tester',
  waitlist: 'Waitlist',
  leads: 'Lead',
};

/** The notice for the poster when something happened to their own job. */
export const LIVE_NOTICES = {
  JobClaimed: 'Your job was claimed',
  WorkSubmitted: 'Results are ready',
  autoAccepted: 'Auto-accepted after 96 hours',
  appealOverturned: 'Your appeal was accepted',
  appealUpheld: 'Your appeal was not accepted',
} as const;

export interface LiveEffect {
  tags: Tag[];
  notice?: string;
}

/** What one live message changes in this tab: tags to refetch and maybe a notice. */
export function liveEffect(
  event: string,
  data: Record<string, unknown>,
  user: Pick<User, 'type'>,
): LiveEffect {
  if (event === 'job') {
    const jobId = typeof data.job_id === 'string' ? data.job_id : undefined;
    const tags: Tag[] = ['Job', 'AdminJob', 'MyJob', 'Overview'];
    if (jobId) tags.push({ type: 'Submission', id: jobId });
    let notice: string | undefined;
    if (user.type === 'poster') {
      if (data.event === 'JobClaimed') notice = LIVE_NOTICES.JobClaimed;
      else if (data.event === 'WorkSubmitted') notice = LIVE_NOTICES.WorkSubmitted;
      else if (data.event === 'SubmissionAccepted' && data.accepted_by === 'auto')
        notice = LIVE_NOTICES.autoAccepted;
    }
    return { tags, notice };
  }
  if (event === 'available') return { tags: ['AvailableJob'] };
  if (event === 'earnings') return { tags: ['Earnings', 'Overview'] };
  if (event === 'admin') {
    const tag = ADMIN_LIST_TAGS[String(data.list)];
    return { tags: tag ? [tag] : [] };
  }
  if (event === 'appeal') {
    // The tester hears the decision (an overturned strike may approve them again: 'Me').
    if (user.type === 'tester' && data.decision)
      return {
        tags: ['Appeal', 'Me'],
        notice:
          data.decision === 'overturn' ? LIVE_NOTICES.appealOverturned : LIVE_NOTICES.appealUpheld,
      };
    return { tags: ['Appeal'] };
  }
  if (event === 'resync') return { tags: ALL_LIVE_TAGS };
  return { tags: [] };
}

/** Delay before reconnect attempt `n` (0-based): 1 s doubling to 30 s, with jitter. */
export function reconnectDelay(n: number): number {
  const base = Math.min(30_000, 1000 * 2 ** n);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

export type LiveState = 'connecting' | 'live' | 'offline';

/** Keeps this tab's live stream open while `user` is signed in; returns the connection state. */
export function useLive(user: Pick<User, 'id' | 'type'> | undefined): LiveState {
  const dispatch = useDispatch();
  const [createTicket] = useCreateLiveTicketMutation();
  const [state, setState] = useState<LiveState>('connecting');
  const userRef = useRef(user);
  userRef.current = user;
  const userId = user?.id;

  useEffect(() => {
    if (!userId || typeof EventSource === 'undefined') return;
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    let lastId = '';
    let stopped = false;

    const onMessage = (ev: MessageEvent<string>) => {
      if (ev.lastEventId) lastId = ev.lastEventId;
      let data: Record<string, unknown> = {};
      try {
        data = JSON.parse(ev.data) as Record<string, unknown>;
      } catch {
        return;
      }
      const effect = liveEffect(ev.type, data, userRef.current ?? { type: null });
      if (effect.tags.length) dispatch(api.util.invalidateTags(effect.tags));
      if (effect.notice) dispatch(toastAdded(effect.notice, 'info'));
    };

    const retry = () => {
      source?.close();
      source = undefined;
      if (stopped) return;
      setState('offline');
      timer = setTimeout(connect, reconnectDelay(attempts++));
    };

    /**
     * The server ended the stream on purpose: its token expired (`token_expired`) or the
     * account changed (`account_changed`: approval, role). Reconnect at once: asking for the
     * ticket refreshes the token (401 → one silent refresh), and the stream resumes after
     * `lastId`, so nothing is missed.
     */
    let renewedAt = 0;
    const renew = (reloadUser: boolean) => () => {
      if (reloadUser) dispatch(api.util.invalidateTags(['Me', ...ALL_LIVE_TAGS]));
      // Ended again moments after a renewal (a clock out of step?): back off as for a drop.
      if (Date.now() - renewedAt < 5000) return retry();
      renewedAt = Date.now();
      source?.close();
      source = undefined;
      if (stopped) return;
      void connect();
    };

    async function connect() {
      if (stopped) return;
      const answer = await createTicket().catch(() => undefined);
      if (stopped) return;
      if (!answer || !('data' in answer) || !answer.data) return retry();
      const qs = new URLSearchParams({ ticket: answer.data.ticket });
      if (lastId) qs.set('last_event_id', lastId);
      const es = new EventSource(`${API_BASE}/live?${qs.toString()}`);
      source = es;
      es.onopen = () => {
        // What changed before this stream opened (while the page loaded, or while the tab was away
        // with nothing to resume from) is refetched once; messages from now on keep it current.
        if (!lastId) dispatch(api.util.invalidateTags(ALL_LIVE_TAGS));
        attempts = 0;
        setState('live');
      };
      // The browser's own reconnect would reuse the spent ticket: reconnect ourselves.
      es.onerror = retry;
      for (const name of ['job', 'available', 'earnings', 'admin', 'appeal', 'resync'])
        es.addEventListener(name, onMessage as EventListener);
      es.addEventListener('session_ended', retry);
      es.addEventListener('token_expired', renew(false));
      es.addEventListener('account_changed', renew(true));
    }

    setState('connecting');
    void connect();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      source?.close();
    };
  }, [userId, createTicket, dispatch]);

  return state;
}
