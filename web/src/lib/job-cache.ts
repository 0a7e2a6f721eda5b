/**
 * The browser's copy of the jobs (issue #50): every cached answer that holds jobs provides a
 * `{ type: 'Job', id }` tag per job, and each job list says here how it holds them. A job as the
 * server answered it (a mutation's answer, a live message) is then written into every list at
 * once, instead of each list being read again. Only what a patch cannot know is refetched: a
 * list that needs more than the job view (the admin's poster e-mails), or an answer that holds
 * the job in a shape no list here describes (a pack).
 */
import type { JobView } from '@htm/contracts/jobs';
import { TRANSITIONS, type JobAction } from '@htm/contracts/marketplace';
import type { ThunkDispatch, UnknownAction } from '@reduxjs/toolkit';
import { api } from './api';
import { jobAllows } from './job-rules';

/** How one endpoint's cached answers hold jobs, and which jobs they should hold. */
export interface JobList<Data = unknown, Arg = unknown> {
  /** The jobs of one cached answer (the draft's own array when patching: changed in place). */
  jobs: (data: Data) => JobView[];
  /** Whether the answer for `arg` shows this job now; a job it holds and no longer shows is taken out. */
  shows: (job: JobView, arg: Arg) => boolean;
  /**
   * A job it should show but does not hold: `insert` it in the server's order (newest first), or
   * `refetch` the answer (it needs more than the job view), or `ignore` it (its own live message
   * brings it, e.g. a job that becomes available).
   */
  missing: 'insert' | 'refetch' | 'ignore';
}

const LISTS = new Map<string, JobList>();

/** Declares how `endpoint` holds jobs (called once where the endpoint is injected). */
export function jobList<Data, Arg>(endpoint: string, list: JobList<Data, Arg>): void {
  LISTS.set(endpoint, list as JobList);
}

/** A tag of the API slice: a type ('MyJob') or a type and an id ({ type: 'Job', id }). */
export type ApiTag = Exclude<
  Parameters<typeof api.util.invalidateTags>[0][number],
  null | undefined | false
>;

/** The tags of an answer holding `jobs`: the list's own tags, then one per job. */
export function jobTags(jobs: ReadonlyArray<Pick<JobView, 'id'>>, ...own: ApiTag[]): ApiTag[] {
  return [...own, ...jobs.map((j): ApiTag => ({ type: 'Job', id: j.id }))];
}

interface CachedQuery {
  endpointName: string;
  originalArgs: unknown;
  data: unknown;
}

type ApiState = { api: ReturnType<typeof api.reducer> };
/** The store's dispatch as thunks of the cache see it. */
export type AppThunkDispatch = ThunkDispatch<ApiState, unknown, UnknownAction>;
type Dispatch = AppThunkDispatch;
type Endpoints = Record<
  string,
  { initiate: (arg: unknown, o: { subscribe: false; forceRefetch: true }) => UnknownAction }
>;

/** The fulfilled cached answers of the job lists declared above. */
function cachedLists(state: ApiState): Array<CachedQuery & { list: JobList }> {
  const out: Array<CachedQuery & { list: JobList }> = [];
  for (const q of Object.values(state.api.queries)) {
    const list = q?.endpointName ? LISTS.get(q.endpointName) : undefined;
    if (list && q?.data !== undefined && q.data !== null)
      out.push({
        endpointName: q.endpointName,
        originalArgs: q.originalArgs,
        data: q.data,
        list,
      });
  }
  return out;
}

/** Reads one cached answer again (its subscribers see the new answer; the other answers stay). */
function refetch(dispatch: Dispatch, q: { endpointName: string; originalArgs: unknown }) {
  const endpoint = (api.endpoints as unknown as Endpoints)[q.endpointName];
  if (endpoint)
    void dispatch(endpoint.initiate(q.originalArgs, { subscribe: false, forceRefetch: true }));
}

const update = (q: CachedQuery, recipe: (draft: unknown) => void) =>
  api.util.updateQueryData(q.endpointName as never, q.originalArgs as never, recipe as never, true);

/** The same job as far as `next` says: every field it carries has the value `held` has. */
function same(held: JobView, next: JobView): boolean {
  return (Object.keys(next) as Array<keyof JobView>).every(
    (k) => JSON.stringify(held[k]) === JSON.stringify(next[k]),
  );
}

/** Where the server's order (created_at, then id, newest first) puts `job` in `jobs`. */
function orderIndex(jobs: JobView[], job: JobView): number {
  const i = jobs.findIndex(
    (j) => j.created_at < job.created_at || (j.created_at === job.created_at && j.id < job.id),
  );
  return i < 0 ? jobs.length : i;
}

/**
 * Writes the server's view of one job into every cached list: replaced where a list holds it,
 * taken out where the list no longer shows it, put in where it now does. Answers holding the
 * job that no list describes are read again. Returns whether anything was not known yet (false:
 * this tab already showed exactly this, e.g. the live echo of its own action).
 */
export const jobChanged =
  (job: JobView) =>
  (dispatch: Dispatch, getState: () => unknown): boolean => {
    const state = getState() as ApiState;
    let news = false;
    const described = new Set<string>();
    for (const q of cachedLists(state)) {
      described.add(q.endpointName);
      const held = q.list.jobs(q.data).find((j) => j.id === job.id);
      const shows = q.list.shows(job, q.originalArgs);
      if (held && shows && same(held, job)) continue;
      if (!held && (!shows || q.list.missing === 'ignore')) continue;
      news = true;
      if (!held && q.list.missing === 'refetch') {
        refetch(dispatch, q);
        continue;
      }
      dispatch(
        update(q, (draft) => {
          const jobs = q.list.jobs(draft);
          const i = jobs.findIndex((j) => j.id === job.id);
          // Fields the job view does not carry (the admin's poster_info, the poster's rating) stay.
          if (i >= 0 && shows) jobs[i] = { ...jobs[i], ...job };
          else if (i >= 0) jobs.splice(i, 1);
          else jobs.splice(orderIndex(jobs, job), 0, job);
        }),
      );
    }
    for (const q of api.util.selectInvalidatedBy(state, [{ type: 'Job', id: job.id }]))
      if (!described.has(q.endpointName)) {
        news = true;
        refetch(dispatch, q);
      }
    return news;
  };

/**
 * A job changed and nothing says how (a payment, a refusal): the answers holding it are read
 * again, or, when none holds it, the lists that would show a new job (it may be new here).
 */
export const jobStale = (id: string) => (dispatch: Dispatch, getState: () => unknown) => {
  const state = getState() as ApiState;
  const holding = api.util.selectInvalidatedBy(state, [{ type: 'Job', id }]);
  const targets = holding.length
    ? holding
    : cachedLists(state).filter((q) => q.list.missing !== 'ignore');
  for (const q of targets) refetch(dispatch, q);
};

/** Takes the jobs `drop` names out of every cached answer of `endpoint` (e.g. the rest of a pack once a slot is taken). */
export const dropJobs =
  (endpoint: string, drop: (j: JobView) => boolean) =>
  (dispatch: Dispatch, getState: () => unknown) => {
    for (const q of cachedLists(getState() as ApiState))
      if (q.endpointName === endpoint && q.list.jobs(q.data).some(drop))
        dispatch(
          update(q, (draft) => {
            const jobs = q.list.jobs(draft);
            for (let i = jobs.length - 1; i >= 0; i -= 1) if (drop(jobs[i]!)) jobs.splice(i, 1);
          }),
        );
  };

/** Changes one job in every list holding it (a field the server answered apart, e.g. a rating). */
export const editJob =
  (id: string, edit: (j: JobView) => void) => (dispatch: Dispatch, getState: () => unknown) => {
    for (const q of cachedLists(getState() as ApiState))
      if (q.list.jobs(q.data).some((j) => j.id === id))
        dispatch(
          update(q, (draft) => {
            const j = q.list.jobs(draft).find((x) => x.id === id);
            if (j) edit(j);
          }),
        );
  };

/**
 * Shows `action`'s outcome on `id` before the server answers, where the rules module says the
 * job may take it (the transition table's target status; a revision counts one more). Returns
 * the undo for a refusal, or nothing when the rules say the server will refuse (then the answer
 * decides).
 */
export const jobOptimistic =
  (id: string, action: JobAction) =>
  (dispatch: Dispatch, getState: () => unknown): (() => void) | undefined => {
    const patches: Array<{ undo: () => void }> = [];
    const t = TRANSITIONS[action];
    for (const q of cachedLists(getState() as ApiState)) {
      const held = q.list.jobs(q.data).find((j) => j.id === id);
      if (!held || !jobAllows(held, action)) continue;
      patches.push(
        dispatch(
          update(q, (draft) => {
            const j = q.list.jobs(draft).find((x) => x.id === id);
            if (!j) return;
            j.status = t.to;
            if (t.sets.includes('revisionCount')) j.revision_count += 1;
          }),
        ),
      );
    }
    return patches.length ? () => patches.forEach((p) => p.undo()) : undefined;
  };

/** What a mutation's onQueryStarted is given (the part used here). */
interface Lifecycle {
  dispatch: Dispatch;
  queryFulfilled: Promise<{ data: { job: JobView } }>;
}

/**
 * The onQueryStarted of a mutation that answers `{ job }`: `action`'s outcome shown at once where
 * the rules allow it (jobOptimistic), then the answer written into every list (jobChanged); a
 * refusal undoes the first and reads the job again (the tab was behind). Resolves to the answer.
 */
export async function answeredJob(
  id: string,
  { dispatch, queryFulfilled }: Lifecycle,
  action?: JobAction,
): Promise<JobView | undefined> {
  const undo = action ? dispatch(jobOptimistic(id, action)) : undefined;
  try {
    const { job } = (await queryFulfilled).data;
    dispatch(jobChanged(job));
    return job;
  } catch {
    undo?.();
    dispatch(jobStale(id));
    return undefined;
  }
}
