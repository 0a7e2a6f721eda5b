/**
 * Form drafts kept in sessionStorage (this tab only), so a stray click, Esc, a reload, a lost
 * session or the sign-in redirect does not throw away what was typed. Keys are per form and,
 * for the submission forms, per job.
 */
import type { CreateJobBody } from '@htm/contracts/jobs';
import { useEffect, useRef, useState } from 'react';

const PREFIX = 'draft:';

export const DRAFT_KEYS = {
  postJob: 'post-job',
  /** Set by the landing page's job request when a signed-out visitor submits it. */
  postJobAfterSignIn: 'post-job-after-sign-in',
  submitWork: (jobId: string) => `submit-work:${jobId}`,
  submitReport: (jobId: string) => `submit-report:${jobId}`,
} as const;

function storage(): Storage | null {
  try {
    return typeof window !== 'undefined' ? window.sessionStorage : null;
  } catch {
    return null;
  }
}

export function readDraft<T>(key: string): T | null {
  const raw = storage()?.getItem(PREFIX + key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function writeDraft(key: string, value: unknown): void {
  try {
    storage()?.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* storage full or blocked: the form still works, only without a draft */
  }
}

export function clearDraft(key: string): void {
  storage()?.removeItem(PREFIX + key);
}

/** True when any string in the value (deeply) has non-blank text. */
export function hasText(value: unknown): boolean {
  if (typeof value === 'string') return value.trim().length > 0;
  if (Array.isArray(value)) return value.some(hasText);
  if (value && typeof value === 'object') return Object.values(value).some(hasText);
  return false;
}

/**
 * State that starts from the stored draft (merged over `initial`) and is written back on
 * every change while `hasContent` says it holds something typed (else the draft is removed).
 */
export function useDraft<T extends object>(
  key: string,
  initial: T,
  hasContent: (value: T) => boolean = hasText,
): [T, (next: T) => void, () => void] {
  const [value, setValue] = useState<T>(() => ({
    ...initial,
    ...(readDraft<Partial<T>>(key) ?? {}),
  }));
  const keyRef = useRef(key);
  keyRef.current = key;
  const contentRef = useRef(hasContent);
  contentRef.current = hasContent;
  const skipFirst = useRef(true);
  useEffect(() => {
    // The first render only shows what is stored; later changes are the user's.
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    if (contentRef.current(value)) writeDraft(keyRef.current, value);
    else clearDraft(keyRef.current);
  }, [value]);
  const clear = () => clearDraft(keyRef.current);
  return [value, setValue, clear];
}

/** The Post New Job draft fields the landing page's job request can fill. */
export type PostJobDraft = Pick<CreateJobBody, 'title' | 'url' | 'what_to_test' | 'requirements'>;

/**
 * A signed-out visitor's job request becomes the Post New Job draft, each sentence once: the
 * first line is "what to test", every further line a thing to check (at most 10 of up to 300
 * characters); a one-line request leaves the things to check for the poster to write. Titled after
 * the site. The flag makes the dashboard open Post New Job after sign-in.
 */
export function keepJobRequestForAfterSignIn(url: string, needs: string): void {
  let host = url.trim();
  try {
    host = new URL(url.trim()).hostname.replace(/^www\./, '');
  } catch {
    /* keep the text as typed */
  }
  const [first = '', ...rest] = needs
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const checks = rest.slice(0, 10).map((l) => l.slice(0, 300));
  const draft: PostJobDraft = {
    title: `Test ${host}`.slice(0, 200),
    url: url.trim(),
    what_to_test: first,
    requirements: checks.length ? checks : [''],
  };
  writeDraft(DRAFT_KEYS.postJob, draft);
  writeDraft(DRAFT_KEYS.postJobAfterSignIn, true);
}

/** True once after a signed-out job request: the caller opens Post New Job. */
export function takePostJobAfterSignIn(): boolean {
  const pending = readDraft<boolean>(DRAFT_KEYS.postJobAfterSignIn) === true;
  if (pending) clearDraft(DRAFT_KEYS.postJobAfterSignIn);
  return pending;
}
