/**
 * The live channel in the browser: one EventSource per signed-in tab (GET /api/live with a
 * single-use ticket). Each message is parsed with the contracts' schema of its kind and applied
 * to the cache: a job message carries the job as it now is and is written into the cached lists
 * (lib/job-cache.ts), a job nobody may claim any more leaves Available Jobs, and what a message
 * cannot say itself (a new available job, earnings, the admin's lists) is refetched by tag; a few
 * also show a short notice. On a drop the tab reconnects with backoff and resumes after the last
 * message id it saw.
 */
import { useEffect, useRef, useState } from 'react';
import { useDispatch } from 'react-redux';
import type { JobView } from '@htm/contracts/jobs';
import {
  liveAdminMessageSchema,
  liveAppealMessageSchema,
  liveAvailableMessageSchema,
  liveEarningsMessageSchema,
  liveJobMessageSchema,
  type LiveTicketResponse,
} from '@htm/contracts/live';
import { formatHours, WINDOWS_MS } from '@htm/contracts/marketplace';
import { api } from './api';
import { API_BASE } from './config';
import {
  dropJobs,
  jobChanged,
  jobStale,
  type ApiTag as Tag,
  type AppThunkDispatch,
} from './job-cache';
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

/** Every tag the live channel may touch (a `resync` reloads them all). */
const ALL_LIVE_TAGS: Tag[] = [
  'Job',
  'AdminJob',
  'MyJob',
  'AvailableJob',
  'Earnings',
  'Standing',
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

/** Events that change a tester's record (standing, session checks): an acceptance, a release, a checked or held report. */
const RECORD_EVENTS = [
  'SubmissionAccepted',
  'JobReleased',
  'ReplacementRequested',
  'SessionChecked',
];

/** The notice for the poster when something happened to their own job. */
export const LIVE_NOTICES = {
  JobClaimed: 'Your job was claimed',
  WorkSubmitted: 'Results are ready',
  autoAccepted: `Auto-accepted after ${formatHours(WINDOWS_MS.autoAccept)}`,
  appealOverturned: 'Your appeal was accepted',
  appealUpheld: 'Your appeal was not accepted',
} as const;

export interface LiveEffect {
  /** Tags to refetch (for a job message, only when it told this tab something new). */
  tags: Tag[];
  /** The job as the server now has it: written into every cached list. */
  job?: JobView;
  /** A job changed and the message does not carry it (a payment): what holds it is read again. */
  stale?: string;
  /** A job nobody may claim any more: it leaves Available Jobs. */
  unavailable?: string;
  notice?: string;
}

const NOTHING: LiveEffect = { tags: [] };

/** What one live message changes in this tab (a message that does not parse changes nothing). */
export function liveEffect(event: string, data: unknown, user: Pick<User, 'type'>): LiveEffect {
  if (event === 'job') {
    const m = liveJobMessageSchema.safeParse(data);
    if (!m.success) return NOTHING;
    const { job_id: jobId, job, event: cause } = m.data;
    const tags: Tag[] = [{ type: 'Submission', id: jobId }, 'Overview'];
    if (user.type === 'tester' && RECORD_EVENTS.includes(cause)) tags.push('Standing');
    let notice: string | undefined;
    if (user.type === 'poster') {
      if (cause === 'JobClaimed') notice = LIVE_NOTICES.JobClaimed;
      else if (cause === 'WorkSubmitted' || (cause === 'SessionChecked' && m.data.delivered))
        notice = LIVE_NOTICES.WorkSubmitted;
      else if (cause === 'SubmissionAccepted' && m.data.accepted_by === 'auto')
        notice = LIVE_NOTICES.autoAccepted;
    }
    if (job) return { tags, job, notice };
    // A check changes no status: the poster's list shows the delivered report (the tester's
    // lists do not change; their checks are read again with 'Standing').
    if (cause === 'SessionChecked' && user.type === 'tester') return { tags, notice };
    return { tags, stale: jobId, notice };
  }
  if (event === 'available') {
    const m = liveAvailableMessageSchema.safeParse(data);
    if (!m.success) return NOTHING;
    // Only the server knows whether a new job fits this tester: that page is read again.
    return m.data.action === 'removed'
      ? { tags: [], unavailable: m.data.job_id }
      : { tags: ['AvailableJob'] };
  }
  if (event === 'earnings')
    return liveEarningsMessageSchema.safeParse(data).success
      ? { tags: ['Earnings', 'Overview'] }
      : NOTHING;
  if (event === 'admin') {
    const m = liveAdminMessageSchema.safeParse(data);
    const tag = m.success ? ADMIN_LIST_TAGS[m.data.list] : undefined;
    return { tags: tag ? [tag] : [] };
  }
  if (event === 'appeal') {
    const m = liveAppealMessageSchema.safeParse(data);
    if (!m.success) return NOTHING;
    // The tester hears the decision (an overturned strike may approve them again: 'Me').
    if (user.type === 'tester' && m.data.decision)
      return {
        tags: ['Appeal', 'Me', 'Standing'],
        notice:
          m.data.decision === 'overturn'
            ? LIVE_NOTICES.appealOverturned
            : LIVE_NOTICES.appealUpheld,
      };
    return { tags: ['Appeal'] };
  }
  if (event === 'resync') return { tags: ALL_LIVE_TAGS };
  return NOTHING;
}

/**
 * Applies one message's effect to this tab: the job patched into the cached lists (a job this tab
 * already shows exactly so, e.g. the echo of its own claim, changes nothing and refetches
 * nothing), the tags refetched, the notice shown.
 */
export const applyLiveEffect = (effect: LiveEffect) => (dispatch: AppThunkDispatch) => {
  const news = effect.job ? dispatch(jobChanged(effect.job)) : true;
  if (effect.stale) dispatch(jobStale(effect.stale));
  if (effect.unavailable) {
    const id = effect.unavailable;
    dispatch(dropJobs('listAvailableJobs', (j) => j.id === id));
  }
  if (news && effect.tags.length) dispatch(api.util.invalidateTags(effect.tags));
  if (effect.notice) dispatch(toastAdded(effect.notice, 'info'));
};

/** Delay before reconnect attempt `n` (0-based): 1 s doubling to 30 s, with jitter. */
export function reconnectDelay(n: number): number {
  const base = Math.min(30_000, 1000 * 2 ** n);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

export type LiveState = 'connecting' | 'live' | 'offline';

/** Keeps this tab's live stream open while `user` is signed in; returns the connection state. */
export function useLive(user: Pick<User, 'id' | 'type'> | undefined): LiveState {
  const dispatch = useDispatch<AppThunkDispatch>();
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
      let data: unknown;
      try {
        data = JSON.parse(ev.data);
      } catch {
        return;
      }
      dispatch(applyLiveEffect(liveEffect(ev.type, data, userRef.current ?? { type: null })));
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
