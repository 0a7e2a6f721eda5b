/**
 * Stream tickets: EventSource cannot send an Authorization header, so a signed-in client first
 * asks for a ticket (with its bearer token) and opens the stream with it. A ticket is random,
 * bound to the caller, valid 60 s and single-use across every gateway replica (Redis GETDEL).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LIVE_TICKET_TTL_SECONDS, type LiveTicketResponse } from '@htm/contracts';
import {
  AppError,
  tokenRevoked,
  tokenStale,
  type Caller,
  type RevocationList,
} from '@htm/service-kit';
import { LIVE_KEYS } from './live-feed.js';

const TICKET_SHAPE = /^[A-Za-z0-9_-]{32}$/;

const refused = () =>
  AppError.unauthorized(
    'This live ticket is missing, expired or already used. Ask for a new one.',
    'invalid_ticket',
  );

export class LiveTickets {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly revoked?: RevocationList,
  ) {}

  async issue(caller: Caller): Promise<LiveTicketResponse> {
    const ticket = randomBytes(24).toString('base64url');
    await this.redis.set(
      LIVE_KEYS.ticket(this.prefix, ticket),
      JSON.stringify(caller),
      'EX',
      LIVE_TICKET_TTL_SECONDS,
    );
    return { ticket, expires_in: LIVE_TICKET_TTL_SECONDS };
  }

  /** The caller a ticket was issued to; the ticket is gone afterwards. 401 for anything else. */
  async redeem(ticket: unknown): Promise<Caller> {
    if (typeof ticket !== 'string' || !TICKET_SHAPE.test(ticket)) throw refused();
    const raw = await this.redis.getdel(LIVE_KEYS.ticket(this.prefix, ticket));
    if (!raw) throw refused();
    const caller = JSON.parse(raw) as Caller;
    if (caller.sid && this.revoked?.isRevoked(caller.sid)) throw tokenRevoked();
    if (this.revoked?.claimsChangedSince?.(caller.id, caller.claimsAt ?? 0)) throw tokenStale();
    // The stream lives no longer than the token the ticket was asked with.
    if (caller.expiresAt !== undefined && caller.expiresAt <= Date.now()) {
      throw AppError.unauthorized(
        'The access token behind this ticket has expired. Refresh it and ask for a new ticket.',
        'token_expired',
      );
    }
    return caller;
  }
}
