import { escapeHtml, standalonePage, styleHashSource } from '@htm/service-kit/html';
import { formatPrice } from '@htm/contracts/marketplace';
import type { LocalSessionRow } from '../db/local-sessions.repository.js';

/** The local provider's checkout page (PAYMENTS_PROVIDER=local), rendered at the HTTP edge. */

function dollars(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/** The page's only style, allowed by its hash in the page's CSP (no script anywhere). */
const STYLE = `body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f6fb;color:#0f172a}
main{max-width:420px;margin:48px auto;padding:32px;background:#fff;border:1px solid #e2e8f0;border-radius:16px;box-shadow:0 8px 24px rgba(15,23,42,.08)}
h1{font-size:1.4rem;margin:0 0 4px}.note{margin:0 0 24px;color:#475569;font-size:.9rem}
.badge{display:inline-block;margin-bottom:16px;padding:2px 10px;border-radius:999px;background:#fef3c7;color:#78350f;font-size:.75rem;font-weight:700;letter-spacing:.04em}
dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:8px 16px;margin:0 0 24px}dt{color:#475569}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
form{margin:0 0 12px}button{width:100%;padding:12px 16px;border-radius:10px;font:inherit;font-weight:700;cursor:pointer}
.pay{background:#1e40af;color:#fff;border:0}.pay:hover,.pay:focus-visible{background:#1e3a8a}
.cancel{background:#fff;color:#1e293b;border:1px solid #cbd5e1}button:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}`;
export const CHECKOUT_STYLE_HASH = styleHashSource(STYLE);

/** The local checkout page: job title, price, Pay and Cancel as plain forms (no script). */
export function renderCheckoutPage(session: LocalSessionRow): string {
  const id = encodeURIComponent(session.id);
  const title = escapeHtml(session.title);
  const open = session.status === 'open';
  const state = open
    ? ''
    : session.paymentStatus === 'paid'
      ? '<p role="status">This checkout is already paid.</p>'
      : '<p role="status">This checkout was cancelled or has expired and can no longer be paid. Please start the payment again from your dashboard.</p>';
  const forms = open
    ? `<form method="post" action="/api/payments/local/checkout/${id}/pay"><button class="pay" type="submit">Pay ${dollars(session.amountCents)}</button></form>
    <form method="post" action="/api/payments/local/checkout/${id}/cancel"><button class="cancel" type="submit">Cancel</button></form>`
    : '';
  return standalonePage({
    title: `Checkout: ${title}`,
    style: STYLE,
    body: `  <main>
    <span class="badge">TEST MODE</span>
    <h1>Local test checkout</h1>
    <p class="note">Development payment page: no real money moves.</p>
    <dl>
      <dt>Job</dt><dd>${title}</dd>
      ${
        session.quantity > 1
          ? `<dt>Testers</dt><dd>${session.quantity} × ${formatPrice(Math.round(session.amountCents / session.quantity))}</dd>
      `
          : ''
      }<dt>Price</dt><dd>${dollars(session.amountCents)} ${escapeHtml(session.currency.toUpperCase())}</dd>
    </dl>
    ${state}
    ${forms}
  </main>`,
  });
}
