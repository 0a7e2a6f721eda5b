import {
  ADMIN_JOB_REQUEST_PAGE_SIZE,
  ADMIN_PAGE_SIZE,
  type AdminListQuery,
  type AdminWaitlistQuery,
  type FeedbackDto,
  type LeadDto,
  type WaitlistEntryDto,
} from '@htm/contracts';
import type { AdminDeps } from '../deps.js';
import { pageFeedback, type Feedback } from '../db/feedback.repository.js';
import { pageLeads, streamLeads, type Lead } from '../db/lead.repository.js';
import {
  pageWaitlistEntries,
  streamWaitlistEntries,
  type WaitlistEntry,
  type WaitlistFilter,
} from '../db/waitlist.repository.js';

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export function toEntryDto(e: WaitlistEntry): WaitlistEntryDto {
  return {
    id: e.id,
    email: e.email,
    name: e.name,
    role: e.role,
    kind: e.kind,
    url: e.url,
    note: e.note,
    approved: e.approved,
    created_at: e.createdAt.toISOString(),
  };
}
export function toLeadDto(l: Lead): LeadDto {
  return { id: l.id, email: l.email, message: l.message, created_at: l.createdAt.toISOString() };
}
export function toFeedbackDto(f: Feedback): FeedbackDto {
  return {
    id: f.id,
    email: f.email,
    message: f.message,
    page_url: f.pageUrl,
    created_at: f.createdAt.toISOString(),
  };
}

function waitlistFilter(q: AdminWaitlistQuery): WaitlistFilter {
  return { q: q.q || undefined, role: q.role, kind: q.kind, approved: q.approved };
}

/** Spec section 9: signups 10 at a time, job requests 5. */
export function defaultWaitlistPageSize(q: AdminWaitlistQuery): number {
  return q.kind === 'job_request' ? ADMIN_JOB_REQUEST_PAGE_SIZE : ADMIN_PAGE_SIZE;
}

export async function listWaitlist(
  deps: AdminDeps,
  q: AdminWaitlistQuery,
): Promise<Page<WaitlistEntryDto>> {
  const pageSize = q.page_size ?? defaultWaitlistPageSize(q);
  const { rows, total } = await pageWaitlistEntries(deps.db, waitlistFilter(q), q.page, pageSize);
  return { items: rows.map(toEntryDto), total, page: q.page, page_size: pageSize };
}

export async function* exportWaitlist(
  deps: AdminDeps,
  q: AdminWaitlistQuery,
): AsyncGenerator<WaitlistEntryDto> {
  for await (const row of streamWaitlistEntries(deps.db, waitlistFilter(q))) yield toEntryDto(row);
}

export async function listLeads(deps: AdminDeps, q: AdminListQuery): Promise<Page<LeadDto>> {
  const pageSize = q.page_size ?? ADMIN_PAGE_SIZE;
  const { rows, total } = await pageLeads(deps.db, q.q || undefined, q.page, pageSize);
  return { items: rows.map(toLeadDto), total, page: q.page, page_size: pageSize };
}

export async function* exportLeads(deps: AdminDeps, q: AdminListQuery): AsyncGenerator<LeadDto> {
  for await (const row of streamLeads(deps.db, q.q || undefined)) yield toLeadDto(row);
}

export async function listFeedback(deps: AdminDeps, q: AdminListQuery): Promise<Page<FeedbackDto>> {
  const pageSize = q.page_size ?? ADMIN_PAGE_SIZE;
  const { rows, total } = await pageFeedback(deps.db, q.q || undefined, q.page, pageSize);
  return { items: rows.map(toFeedbackDto), total, page: q.page, page_size: pageSize };
}
