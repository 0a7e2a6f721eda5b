import { BRAND_NAME } from '@htm/contracts';
import { escapeHtml, standalonePage, styleHashSource } from '@htm/service-kit/html';

/**
 * The pages behind the unsubscribe link of every e-mail, served without the web app and without
 * script: GET shows what the link would switch off and a button (mail scanners follow links, so
 * only the button's POST unsubscribes); the POST and a bad link answer a page too.
 */
const STYLE = `body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f6fb;color:#0f172a}
main{max-width:440px;margin:48px auto;padding:28px;background:#fff;border:1px solid #e2e8f0;border-radius:16px;box-shadow:0 8px 24px rgba(15,23,42,.08)}
@media (max-width:520px){main{margin:0;min-height:100vh;border:0;border-radius:0;box-shadow:none;padding:24px 20px}}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 12px}p{margin:0 0 16px;color:#334155}
button{width:100%;min-height:48px;padding:12px 16px;border:0;border-radius:10px;background:#1e40af;color:#fff;font:inherit;font-weight:700;cursor:pointer}
button:hover,button:focus-visible{background:#1e3a8a}button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
a{color:#1e40af}.small{font-size:.9rem;color:#475569;margin-top:16px}
.brand{margin:0 0 16px;font-weight:700;font-size:1.1rem;color:#1e40af}`;

export const UNSUBSCRIBE_STYLE_HASH = styleHashSource(STYLE);

const page = (body: string) =>
  standalonePage({
    title: 'E-mail settings',
    style: STYLE,
    body: `  <main>\n    <p class="brand">${BRAND_NAME}</p>\n${body}\n  </main>`,
  });
const profileLink =
  '<p class="small">You can choose which e-mails you get in your <a href="/dashboard">profile</a>.</p>';

/** GET: asks before switching anything off. */
export function confirmPage(label: string, action: string): string {
  return page(`    <h1>Stop these e-mails?</h1>
    <p>You will no longer get the e-mail “${escapeHtml(label)}”. Other e-mails are not affected.</p>
    <form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>
    ${profileLink}`);
}

/** After the POST. */
export function donePage(label: string): string {
  return page(`    <h1>You are unsubscribed</h1>
    <p role="status">You will no longer get the e-mail “${escapeHtml(label)}”.</p>
    <p>You can switch e-mails on again in your <a href="/dashboard">profile</a>.</p>`);
}

/** A link that is not ours (forged, cut short, or mangled by the mail client). */
export function invalidLinkPage(detail: string): string {
  return page(`    <h1>This link does not work</h1>
    <p role="alert">${escapeHtml(detail)} It may have been cut short by your mail program.</p>
    ${profileLink}`);
}
