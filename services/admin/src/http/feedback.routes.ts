import { Router } from 'express';
import { feedbackBodySchema } from '@htm/contracts';
import { catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import { recordFeedback } from '../domain/record-feedback.js';

export function feedbackRoutes(deps: AdminDeps): Router {
  const r = catalogueRoutes('admin');
  r.post('/api/feedback', async (req, res) => {
    const body = parseOrThrow(feedbackBodySchema, req.body);
    const saved = await recordFeedback(deps, body);
    res.status(201).json({ success: true, id: saved.id });
  });
  return r.router;
}
