/**
 * The live channel's routes, served by the gateway itself (never proxied):
 * POST /api/live/ticket (bearer token) -> {ticket, expires_in}; GET /api/live?ticket=T -> SSE.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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
    // Refused before express saw it (openOutsideExpress below): answered here in the usual shape.
    const refusal = (req as LiveRequest)[REFUSAL];
    if (refusal !== undefined) return next(unavailable(refusal));
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

/** Why a stream opened outside express was refused; express's route then answers with it. */
const REFUSAL = Symbol('live refusal');
type LiveRequest = IncomingMessage & { [REFUSAL]?: unknown };
type Handle = (req: IncomingMessage, res: ServerResponse, done?: unknown) => void;

export interface OutsideExpressDeps {
  hub: LiveHub;
  tickets: LiveTickets;
  /** What express's first layer does to every answer (correlation id, metrics, security headers, CORS). */
  prepare: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Opens live streams without express. Express 5 gives every request and response it handles a new
 * prototype (Object.setPrototypeOf), and V8 then gives each of them a hidden class of its own:
 * about 2 KB per open stream for as long as it stays open (heap snapshots of bench/live-scale.ts,
 * LIVE_SCALE_HEAP). A `GET /api/live?ticket=T` (one ticket, nothing else unusual) is redeemed
 * here and its stream opened with the headers express would have set; anything else, and any
 * refusal (bad or used ticket, cap, Redis away), goes to express as before, which answers it in
 * the documented error shape.
 */
export function openStreamsOutsideExpress(app: Express, deps: OutsideExpressDeps): void {
  const { hub, tickets, prepare } = deps;
  const target = app as unknown as { handle: Handle };
  const handle = target.handle.bind(app);
  target.handle = (req, res, done) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if (req.method !== 'GET' || (q === -1 ? url : url.slice(0, q)) !== '/api/live')
      return handle(req, res, done);
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    const ticket = query.getAll('ticket');
    if (ticket.length !== 1 || query.getAll('last_event_id').length > 1)
      return handle(req, res, done);
    void (async () => {
      try {
        const caller = await tickets.redeem(ticket[0]);
        hub.assertRoom(caller);
        const header = req.headers['last-event-id'];
        const lastEventId =
          (typeof header === 'string' ? header : undefined) ??
          query.get('last_event_id') ??
          undefined;
        prepare(req, res);
        await hub.open(caller, res, lastEventId);
      } catch (err) {
        if (res.headersSent) return void res.destroy();
        (req as LiveRequest)[REFUSAL] = err ?? new Error('refused');
        handle(req, res, done);
      }
    })();
  };
}
