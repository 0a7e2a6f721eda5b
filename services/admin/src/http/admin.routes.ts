import { Router } from 'express';
import { z } from 'zod';
import {
  adminAuditQuerySchema,
  adminListQuerySchema,
  adminWaitlistQuerySchema,
  approveWaitlistBodySchema,
  clearJobsBodySchema,
  type AuditEntryDto,
  type LeadDto,
  type WaitlistEntryDto,
} from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import type { JobsClient } from '../clients/jobs.client.js';
import {
  exportLeads,
  exportWaitlist,
  listFeedback,
  listLeads,
  listWaitlist,
  toEntryDto,
} from '../domain/admin-lists.js';
import { approveSignup } from '../domain/approve-signup.js';
import { clearJobs, previewClearJobs } from '../domain/clear-jobs.js';
import { exportAudit, listAudit } from '../domain/audit.js';
import { deadLetterSummary, replayDeadLetters } from '../domain/dead-letters.js';
import { sendCsv, type CsvColumn } from './csv.js';

const WAITLIST_CSV: CsvColumn<WaitlistEntryDto>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'created_at', value: (e) => e.created_at },
  { header: 'kind', value: (e) => e.kind },
  { header: 'role', value: (e) => e.role },
  { header: 'email', value: (e) => e.email },
  { header: 'name', value: (e) => e.name },
  { header: 'url', value: (e) => e.url },
  { header: 'note', value: (e) => e.note },
  { header: 'approved', value: (e) => (e.approved ? 'true' : 'false') },
];
const LEADS_CSV: CsvColumn<LeadDto>[] = [
  { header: 'id', value: (l) => l.id },
  { header: 'created_at', value: (l) => l.created_at },
  { header: 'email', value: (l) => l.email },
  { header: 'message', value: (l) => l.message },
];

const AUDIT_CSV: CsvColumn<AuditEntryDto>[] = [
  { header: 'id', value: (a) => String(a.id) },
  { header: 'at', value: (a) => a.at },
  { header: 'actor_id', value: (a) => a.actor_id },
  { header: 'action', value: (a) => a.action },
  { header: 'target', value: (a) => a.target },
  { header: 'details', value: (a) => JSON.stringify(a.details) },
  { header: 'correlation_id', value: (a) => a.correlation_id },
];

const entryId = z.uuid();

/** The admin dashboard's routes: admin account only (401 anonymous, 403 any other role). */
export function adminRoutes(deps: AdminDeps, jobs: JobsClient): Router {
  const r = catalogueRoutes('admin');
  const adminOnly = [deps.auth.authenticate, deps.auth.requireRole('admin')];

  r.get('/api/admin/waitlist', ...adminOnly, async (req, res) => {
    const q = parseOrThrow(adminWaitlistQuerySchema, req.query);
    if (q.export === 'csv') return sendCsv(res, 'waitlist', WAITLIST_CSV, exportWaitlist(deps, q));
    const page = await listWaitlist(deps, q);
    res.json({
      entries: page.items,
      total: page.total,
      page: page.page,
      page_size: page.page_size,
    });
  });

  r.patch('/api/admin/waitlist/{id}', ...adminOnly, async (req, res) => {
    const id = entryId.safeParse(req.params.id);
    if (!id.success)
      throw AppError.notFound('Waitlist entry not found.', 'waitlist_entry_not_found');
    const body = parseOrThrow(approveWaitlistBodySchema, req.body);
    const entry = await approveSignup(deps, id.data, body.approved, callerOf(req).id);
    res.json({ entry: toEntryDto(entry) });
  });

  r.get('/api/admin/leads', ...adminOnly, async (req, res) => {
    const q = parseOrThrow(adminListQuerySchema, req.query);
    if (q.export === 'csv') return sendCsv(res, 'leads', LEADS_CSV, exportLeads(deps, q));
    const page = await listLeads(deps, q);
    res.json({ leads: page.items, total: page.total, page: page.page, page_size: page.page_size });
  });

  r.get('/api/admin/feedback', ...adminOnly, async (req, res) => {
    const q = parseOrThrow(adminListQuerySchema, req.query);
    if (q.export)
      throw AppError.invalid('Feedback cannot be exported.', {
        export: ['Feedback cannot be exported'],
      });
    const page = await listFeedback(deps, q);
    res.json({
      feedback: page.items,
      total: page.total,
      page: page.page,
      page_size: page.page_size,
    });
  });

  // Clear-all in two steps: the preview answers the counts and a confirmation for exactly them.
  r.post('/api/admin/clear-jobs/preview', ...adminOnly, async (req, res) => {
    const caller = callerOf(req);
    res.json(await previewClearJobs(deps, jobs, caller.id, caller.sid));
  });

  r.post('/api/admin/clear-jobs', ...adminOnly, async (req, res) => {
    const body = parseOrThrow(clearJobsBodySchema, req.body ?? {});
    const caller = callerOf(req);
    res.json(await clearJobs(deps, jobs, caller.id, caller.sid, body.confirmation));
  });

  r.get('/api/admin/audit', ...adminOnly, async (req, res) => {
    res.json(await listAudit(deps, parseOrThrow(adminAuditQuerySchema, req.query)));
  });

  r.get('/api/admin/audit.csv', ...adminOnly, async (req, res) => {
    await sendCsv(
      res,
      'audit',
      AUDIT_CSV,
      exportAudit(deps, parseOrThrow(adminAuditQuerySchema, req.query)),
    );
  });

  r.get('/api/admin/dead-letters', ...adminOnly, async (_req, res) => {
    res.json(await deadLetterSummary(deps));
  });

  r.post('/api/admin/dead-letters/replay', ...adminOnly, async (_req, res) => {
    res.json(await replayDeadLetters(deps));
  });

  return r.router;
}
