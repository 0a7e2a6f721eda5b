/**
 * The live channel's routes, served by the gateway itself (never proxied):
 * POST /api/live/ticket (bearer token) -> {ticket, expires_in}; GET /api/live?ticket=T -> SSE.
 */
import type { Express, RequestHandler } from 'express';
import { AppError, callerOf, series } from '@htm/service-kit';

/** Redis unreachable (or any unexpected failure): 503, never a 500. */
const unavailable = (err: unknown) =>
  err instanceof AppError
    ? err
    : new AppError(
        'unavailable',
        'Live updates are unavailable right now. The page still updates when you come back to it.',
        { code: 'live_unavailable' },
      );
import type { LiveHub } from './live-hub.js';
import type { LiveTickets } from './live-tickets.js';

export interface LiveRoutesDeps {
  hub: LiveHub;
  tickets: LiveTickets;
  /** Cross-site check, token check and rate limit of the ticket call (as for a proxied route). */
  ticketGuards: RequestHandler[];
}

export function mountLiveRoutes(app: Express, deps: LiveRoutesDeps): void {
  const { hub, tickets } = deps;

  const issueTicket: RequestHandler = async (req, res, next) => {
    try {
      const caller = callerOf(req);
      hub.assertRoom(caller); // no ticket for a stream that would be refused
      res.set('Cache-Control', 'no-store').json(await tickets.issue(caller));
    } catch (err) {
      next(unavailable(err));
    }
  };

  const openStream: RequestHandler = async (req, res, next) => {
    let opened = false;
    try {
      const caller = await tickets.redeem(req.query.ticket);
      // EventSource resends the last id as a header; a client reconnecting with a new ticket passes it in the query.
      const q = req.query.last_event_id;
      const lastEventId = req.get('last-event-id') ?? (typeof q === 'string' ? q : undefined);
      opened = true;
      await hub.open(caller, res, lastEventId);
    } catch (err) {
      if (!opened || !res.headersSent) next(unavailable(err));
    }
  };

  const notAllowed: RequestHandler = (req, _res, next) =>
    next(new AppError('method_not_allowed', `${req.method} is not allowed on ${req.path}.`));

  app.post('/api/live/ticket', series(...deps.ticketGuards, issueTicket));
  app.all('/api/live/ticket', notAllowed);
  app.get('/api/live', openStream);
  app.all('/api/live', notAllowed);
}
