import { standalonePage, styleHashSource } from '@htm/service-kit/html';
import type { SignInIntent } from '@htm/contracts';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
.dev{background:#fff3cd;border:2px solid #b58100;padding:.75rem;border-radius:.5rem;font-weight:600}
label{display:block;margin-top:1rem}input{display:block;width:100%;padding:.5rem;margin-top:.25rem;box-sizing:border-box}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font-size:1rem}`;

/** CSP for the page: no script at all, only this exact <style>, form posts to itself. */
export const DEV_PAGE_CSP = `default-src 'none'; style-src ${styleHashSource(STYLE)}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** The clearly labelled development stand-in for Google (no Google credentials configured). */
export function devSignInPage(intent: SignInIntent): string {
  const title = intent === 'tester' ? 'Secure Tester Login (development)' : 'Sign in (development)';
  return standalonePage({
    title,
    style: STYLE,
    body: `<main>
<h1>${title}</h1>
<p class="dev" role="note">DEV SIGN-IN: Google sign-in is not configured on this server. This page stands in for Google and must never be used in production.</p>
<form method="get" action="/api/auth/dev/login">
<input type="hidden" name="intent" value="${intent}">
<label for="email">Gmail address</label>
<input id="email" name="email" type="email" required autocomplete="email" placeholder="someone@gmail.com">
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" placeholder="Your name">
<button type="submit">Continue</button>
</form>
</main>`,
  });
}
