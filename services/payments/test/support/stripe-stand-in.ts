/**
 * A local stand-in for the Stripe API, for tests only: the official `stripe` SDK is pointed at
 * it (STRIPE_API_HOST/PORT/PROTOCOL). It records every request (method, path, headers, form
 * body), keeps checkout sessions, connected accounts and transfers, and replays the stored
 * answer for a repeated Idempotency-Key like Stripe does. Tests can make it fail or "lose the
 * connection after doing the work" for chosen requests.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
  query: Record<string, string>;
}

/** ok; error500 (nothing done); refuse400 (a certain refusal); drop-after-create (transfer made, connection cut); hang (transfer made, no answer until released). */
export type Fault = 'ok' | 'error500' | 'refuse400' | 'drop-after-create' | 'hang';

type Json = Record<string, unknown>;

const rid = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export class StripeStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, Json>();
  readonly accounts = new Map<string, Json>();
  readonly transfers = new Map<string, Json>();
  readonly refunds = new Map<string, Json>();
  /** Idempotency-Key -> the stored answer (only answers of requests that ran). */
  private readonly idempotent = new Map<string, { status: number; body: string }>();
  /** Decides the fate of each POST /v1/transfers (default: ok). */
  transferFault: (form: Record<string, string>, key: string | undefined) => Fault = () => 'ok';
  /** Makes POST /v1/refunds answer 500 (nothing refunded) while true. */
  refundsDown = false;
  /** Connected accounts start ready (transfers active) unless set false. */
  accountsReady = true;
  private server?: Server;
  private readonly hung: Socket[] = [];
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://stand-in');
        const form = Object.fromEntries(
          new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
        );
        const rec: RecordedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          headers: req.headers,
          form,
          query: Object.fromEntries(url.searchParams),
        };
        this.requests.push(rec);
        const key =
          typeof req.headers['idempotency-key'] === 'string'
            ? req.headers['idempotency-key']
            : undefined;
        const send = (status: number, body: Json) => {
          const text = JSON.stringify(body);
          if (key && req.method === 'POST' && status < 500)
            this.idempotent.set(`${url.pathname}|${key}`, { status, body: text });
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid('req_') });
          res.end(text);
        };
        const transferFault =
          req.method === 'POST' && url.pathname === '/v1/transfers'
            ? this.transferFault(form, key)
            : 'ok';
        if (key && req.method === 'POST') {
          const stored = this.idempotent.get(`${url.pathname}|${key}`);
          if (stored && transferFault === 'drop-after-create') return void req.socket.destroy();
          if (stored && transferFault === 'hang') return void this.hung.push(req.socket);
          if (stored) {
            res.writeHead(stored.status, {
              'content-type': 'application/json',
              'idempotent-replayed': 'true',
            });
            res.end(stored.body);
            return;
          }
        }
        try {
          this.route(
            rec,
            key,
            transferFault,
            send,
            () => req.socket.destroy(),
            () => this.hung.push(req.socket),
          );
        } catch (err) {
          send(500, { error: { type: 'api_error', message: (err as Error).message } });
        }
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  private route(
    rec: RecordedRequest,
    key: string | undefined,
    fault: Fault,
    send: (status: number, body: Json) => void,
    drop: () => void,
    hang: () => void,
  ): void {
    const { method, path, form } = rec;
    const notFound = () =>
      send(404, { error: { type: 'invalid_request_error', message: `No such resource: ${path}` } });
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const id = rid('cs_test_');
      const unit = Number(form['line_items[0][price_data][unit_amount]']);
      const qty = Number(form['line_items[0][quantity]'] ?? 1);
      const metadata: Record<string, string> = {};
      for (const [k, v] of Object.entries(form)) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]] = v;
      }
      const session = {
        id,
        object: 'checkout.session',
        url: `https://checkout.stripe.com/c/pay/${id}`,
        status: 'open',
        payment_status: 'unpaid',
        payment_intent: null,
        mode: form.mode,
        amount_total: unit * qty,
        currency: form['line_items[0][price_data][currency]'],
        client_reference_id: form.client_reference_id ?? null,
        metadata,
        success_url: form.success_url,
        cancel_url: form.cancel_url,
      };
      this.sessions.set(id, session);
      return send(200, session);
    }
    let m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const s = this.sessions.get(decodeURIComponent(m[1]));
      return s ? send(200, s) : notFound();
    }
    m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (method === 'POST' && m) {
      const s = this.sessions.get(decodeURIComponent(m[1]));
      if (!s) return notFound();
      // Like Stripe: only an open session can be expired.
      if (s.status !== 'open')
        return send(400, {
          error: {
            type: 'invalid_request_error',
            message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(s.status)}".`,
          },
        });
      s.status = 'expired';
      return send(200, s);
    }
    if (method === 'POST' && path === '/v1/refunds') {
      if (this.refundsDown)
        return send(500, { error: { type: 'api_error', message: 'Stand-in: refunds are down' } });
      const paid = [...this.sessions.values()].find(
        (s) => s.payment_intent === form.payment_intent && s.payment_status === 'paid',
      );
      if (!paid)
        return send(400, {
          error: {
            type: 'invalid_request_error',
            message: `No such payment_intent: '${form.payment_intent}'`,
          },
        });
      const refund = {
        id: rid('re_'),
        object: 'refund',
        amount: Number(form.amount ?? paid.amount_total),
        currency: paid.currency,
        payment_intent: form.payment_intent,
        reason: form.reason ?? null,
        status: 'succeeded',
        metadata: Object.fromEntries(
          Object.entries(form)
            .filter(([k]) => k.startsWith('metadata['))
            .map(([k, v]) => [k.slice(9, -1), v]),
        ),
      };
      this.refunds.set(refund.id, refund);
      return send(200, refund);
    }
    if (method === 'POST' && path === '/v1/accounts') {
      const id = rid('acct_');
      const account = this.makeAccount(id, form);
      this.accounts.set(id, account);
      return send(200, account);
    }
    m = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const a = this.accounts.get(decodeURIComponent(m[1]));
      return a ? send(200, { ...a, ...this.readiness() }) : notFound();
    }
    if (method === 'POST' && path === '/v1/account_links') {
      if (!this.accounts.has(form.account)) return notFound();
      return send(200, {
        object: 'account_link',
        url: `https://connect.stripe.com/setup/e/${form.account}/${rid('')}`,
        expires_at: Math.floor(Date.now() / 1000) + 300,
      });
    }
    if (method === 'GET' && path === '/v1/transfers') {
      const data = [...this.transfers.values()].filter(
        (t) => !rec.query.transfer_group || t.transfer_group === rec.query.transfer_group,
      );
      return send(200, { object: 'list', url: '/v1/transfers', has_more: false, data });
    }
    if (method === 'POST' && path === '/v1/transfers') {
      if (fault === 'error500')
        return send(500, { error: { type: 'api_error', message: 'Stand-in: transfer failed' } });
      if (fault === 'refuse400')
        return send(400, {
          error: {
            type: 'invalid_request_error',
            code: 'insufficient_funds',
            message: 'Stand-in: insufficient available balance',
          },
        });
      const id = rid('tr_');
      const transfer = {
        id,
        object: 'transfer',
        amount: Number(form.amount),
        currency: form.currency,
        destination: form.destination,
        transfer_group: form.transfer_group ?? null,
        reversed: false,
        metadata: Object.fromEntries(
          Object.entries(form)
            .filter(([k]) => k.startsWith('metadata['))
            .map(([k, v]) => [k.slice(9, -1), v]),
        ),
      };
      this.transfers.set(id, transfer);
      if (fault === 'drop-after-create' || fault === 'hang') {
        // The transfer exists and its answer is stored for the key, but the caller never hears it.
        if (key)
          this.idempotent.set(`${path}|${key}`, { status: 200, body: JSON.stringify(transfer) });
        return fault === 'hang' ? hang() : drop();
      }
      return send(200, transfer);
    }
    return notFound();
  }

  private readiness() {
    return this.accountsReady
      ? {
          details_submitted: true,
          payouts_enabled: true,
          charges_enabled: true,
          capabilities: { transfers: 'active' },
        }
      : {
          details_submitted: false,
          payouts_enabled: false,
          charges_enabled: false,
          capabilities: { transfers: 'inactive' },
        };
  }

  private makeAccount(id: string, form: Record<string, string>): Json {
    return {
      id,
      object: 'account',
      type: form.type,
      email: form.email ?? null,
      country: form.country,
      metadata: { tester_id: form['metadata[tester_id]'] },
      ...this.readiness(),
    };
  }

  /** The payer pays a session at Stripe (it completes with a payment intent); false if it was not open. */
  pay(sessionId: string): boolean {
    const s = this.sessions.get(sessionId);
    if (!s || s.status !== 'open') return false;
    Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: rid('pi_') });
    return true;
  }

  /** Stripe forgets idempotency keys after 24 hours. */
  forgetIdempotencyKeys(): void {
    this.idempotent.clear();
  }

  /** Requests held by the 'hang' fault so far. */
  get hangingCount(): number {
    return this.hung.length;
  }

  /** Cuts the connections held by the 'hang' fault. */
  releaseHung(): void {
    for (const s of this.hung.splice(0)) s.destroy();
  }

  /** The requests seen for a method and path. */
  seen(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.releaseHung();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}
