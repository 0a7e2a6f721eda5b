import { createHash } from 'node:crypto';

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** The CSP source allowing exactly this inline <style> (`'sha256-…'`). */
export function styleHashSource(style: string): string {
  return `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
}

/**
 * A page a service serves itself, without the web app and without script (the development
 * sign-in, the local checkout): `title` and `body` are HTML already escaped by the caller, `style`
 * the page's only <style>, which its CSP allows by hash (styleHashSource).
 */
export function standalonePage({
  title,
  style,
  body,
}: {
  title: string;
  style: string;
  body: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${style}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

const RATE_LIMITED_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#0f172a;line-height:1.5}' +
  'a.btn{display:inline-block;margin-top:.5rem;padding:.6rem 1.1rem;border-radius:.5rem;background:#1d4ed8;color:#fff;text-decoration:none;font-weight:600}' +
  'p.muted{color:#475569}';

/** The CSP of the rate-limit page: its one style, no script, nothing else. */
export const RATE_LIMITED_PAGE_CSP = `default-src 'none'; style-src ${styleHashSource(RATE_LIMITED_STYLE)}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;

/**
 * What a browser shows when a page it navigated to (sign-in, dev sign-in, checkout) was refused
 * for too many requests: wait, then the retry link (`retryHref`: a same-site path).
 */
export function rateLimitedPage(retryHref: string, retryAfterSeconds: number): string {
  const wait =
    retryAfterSeconds <= 60 ? 'a minute' : `${Math.ceil(retryAfterSeconds / 60)} minutes`;
  return standalonePage({
    title: 'Too many requests — HumanTest',
    style: RATE_LIMITED_STYLE,
    body: `<main>
<h1>Please wait a moment</h1>
<p>Too many requests came from your network in a short time, so this one was not carried out.</p>
<p>Please wait ${wait}, then try again.</p>
<p><a class="btn" href="${escapeHtml(retryHref)}">Try again</a></p>
<p class="muted"><a href="/">Back to HumanTest</a></p>
</main>`,
  });
}
