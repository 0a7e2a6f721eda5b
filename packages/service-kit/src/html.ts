import { createHash } from 'node:crypto';

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
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
export function standalonePage({ title, style, body }: { title: string; style: string; body: string }): string {
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
