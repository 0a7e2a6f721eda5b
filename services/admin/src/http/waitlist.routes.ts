import { Router } from 'express';
import { JOB_REQUEST_ROLE, WAITLIST_MESSAGES, waitlistBodySchema } from '@htm/contracts';
import { AppError, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import { joinWaitlist } from '../domain/join-waitlist.js';

export function waitlistRoutes(deps: AdminDeps): Router {
  const r = catalogueRoutes('admin');
  r.post('/api/waitlist', deps.auth.optional, async (req, res) => {
    // A job request needs a signed-in caller before anything else is worth checking.
    if ((req.body as { role?: unknown } | undefined)?.role === JOB_REQUEST_ROLE && !req.caller) {
      throw AppError.unauthorized(WAITLIST_MESSAGES.signInFirst, 'sign_in_required');
    }
    const body = parseOrThrow(waitlistBodySchema, req.body);
    await joinWaitlist(deps, body, req.caller ?? null);
    res.status(201).json({ success: true });
  });
  return r.router;
}
