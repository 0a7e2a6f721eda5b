import { Router, type Request } from 'express';
import { checkoutSessionIdSchema } from '@htm/contracts';
import { AppError, catalogueRoutes } from '@htm/service-kit';
import type { PaymentsDeps } from '../deps.js';
import { redirectBase } from '../config.js';
import { deliverLocalEvent } from '../providers/local-webhook.js';
import { CHECKOUT_STYLE_HASH, renderCheckoutPage } from './local-checkout.page.js';
import { LocalProvider } from '../providers/local.provider.js';

/**
 * The local provider's checkout (PAYMENTS_PROVIDER=local only): a page with Pay and Cancel.
 * Like a Stripe-hosted checkout URL, knowing the (random) session id is what grants access.
 */
export function localCheckoutRoutes(deps: PaymentsDeps): Router {
  const r = catalogueRoutes('payments');
  const provider = deps.provider;
  if (!(provider instanceof LocalProvider)) {
    // Stripe pays on its own pages: the local checkout is not answered.
    r.without('get', '/api/payments/local/checkout/{session_id}');
    r.without('post', '/api/payments/local/checkout/{session_id}/pay');
    r.without('post', '/api/payments/local/checkout/{session_id}/cancel');
    return r.router;
  }

  const cfg = deps.config;
  const selfUrl = (req: Request) =>
    (cfg.PAYMENTS_PROVIDER === 'local' && cfg.PAYMENTS_SELF_URL?.replace(/\/+$/, '')) ||
    `http://127.0.0.1:${req.socket.localPort}`;
  const webBase = redirectBase(cfg);
  const formAction = ["'self'", cfg.WEB_ORIGIN ? new URL(cfg.WEB_ORIGIN).origin : '']
    .filter(Boolean)
    .join(' ');

  const load = async (raw: string) => {
    const id = checkoutSessionIdSchema.safeParse(raw);
    const session = id.success ? await provider.findSession(id.data) : undefined;
    if (!session) throw AppError.notFound('No such checkout session.', 'session_not_found');
    return session;
  };

  r.get('/api/payments/local/checkout/{session_id}', async (req, res) => {
    const session = await load(String(req.params.session_id));
    res
      .status(200)
      .set({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': `default-src 'none'; style-src ${CHECKOUT_STYLE_HASH}; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`,
        'x-content-type-options': 'nosniff',
        // same-origin, not no-referrer: with no-referrer Chrome posts the Pay form with `Origin: null`,
        // which the gateway refuses for cookie-carrying writes.
        'referrer-policy': 'same-origin',
      })
      .send(renderCheckoutPage(session));
  });

  r.post('/api/payments/local/checkout/{session_id}/pay', async (req, res) => {
    const session = await load(String(req.params.session_id));
    const completed = await provider.complete(session.id);
    if (completed)
      await deliverLocalEvent(deps, selfUrl(req), 'checkout.session.completed', completed);
    // Someone else closed it first (a double-click on Pay, or Pay racing Cancel): the redirect
    // follows the session as it is now, not as it was read before complete().
    else if ((await provider.findSession(session.id))?.paymentStatus !== 'paid')
      return res.redirect(303, `${webBase}/payment/cancel`);
    res.redirect(303, `${webBase}/payment/success?session_id=${encodeURIComponent(session.id)}`);
  });

  r.post('/api/payments/local/checkout/{session_id}/cancel', async (req, res) => {
    const session = await load(String(req.params.session_id));
    const cancelled = await provider.cancel(session.id);
    if (cancelled)
      await deliverLocalEvent(deps, selfUrl(req), 'checkout.session.expired', cancelled);
    else if ((await provider.findSession(session.id))?.paymentStatus === 'paid')
      return res.redirect(
        303,
        `${webBase}/payment/success?session_id=${encodeURIComponent(session.id)}`,
      );
    res.redirect(303, `${webBase}/payment/cancel`);
  });

  return r.router;
}
