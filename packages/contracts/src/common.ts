import { z } from 'zod';

/** The documented JSON error shape of every service. */
export const errorBodySchema = z.object({
  detail: z.string(),
  code: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Trimmed string helper: required with a message, optional max length. */
export const trimmed = (required: string, max?: number, maxMessage?: string) => {
  let s = z.string({ error: required }).trim().min(1, { error: required });
  if (max) s = s.max(max, { error: maxMessage ?? `Must be ${max} characters or less` });
  return s;
};

export const emailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .toLowerCase()
  .min(1, { error: 'Email is required' })
  .max(254, { error: 'Email must be 254 characters or less' })
  .email({ error: 'Please enter a valid email address' });

/**
 * The website-URL rule of the Post New Job form and POST /api/jobs: one function for the
 * browser and the server. It does not lean on `new URL` alone, because URL parsers differ:
 * Chromium turns `https://exa mple.com` into the host `exa%20mple.com` where Node throws.
 * Accepted: http(s) URLs whose host is a public DNS name (a dot, a top-level label of
 * letters or an IDN `xn--` label), any port, path, query or fragment, IDN hosts.
 * Refused: whitespace anywhere, other schemes, `localhost` and `*.localhost`, IP literals
 * (loopback, private, link-local and every other address), single-label hosts such as `http://a`.
 */
export function isPublicWebUrl(value: string): boolean {
  if (/\s/.test(value) || [...value].some(isControlChar)) return false;
  if (!/^https?:\/\/[^/\\]/i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return isPublicHostName(url.hostname);
}

/** What a form says about an http(s) address of a machine testers cannot reach. */
export const LOCAL_URL_MESSAGE =
  'Local addresses cannot be tested: enter an address testers can open on the internet';

/**
 * Why a website URL is refused: 'local' for a well-formed http(s) URL whose host is local or
 * private (localhost, IP literals, single-label names), 'invalid' for anything else, null when
 * isPublicWebUrl accepts it. Forms say the matching sentence.
 */
export function webUrlProblem(value: string): 'invalid' | 'local' | null {
  if (isPublicWebUrl(value)) return null;
  if (/\s/.test(value) || [...value].some(isControlChar)) return 'invalid';
  if (!/^https?:\/\/[^/\\]/i.test(value)) return 'invalid';
  let host: string;
  try {
    host = new URL(value).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return 'invalid';
  }
  const local =
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.startsWith('[') || // IPv6 literal
    /^[0-9.]+$/.test(host) || // IPv4 literal (the URL parser turns 127.1 and 0x7f.1 into 127.0.0.1)
    /^[a-z0-9_-]+$/.test(host); // one label: an intranet name
  return local ? 'local' : 'invalid';
}

function isControlChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** A DNS name testers can reach: an ASCII (punycoded) host, as `URL.hostname` gives it. */
export function isPublicHostName(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host.length > 253) return false;
  const labels = host.split('.');
  if (labels.length < 2) return false; // no dot: localhost, intranet names, http://a
  if (!labels.every((l) => HOST_LABEL.test(l))) return false; // also IPv6 literals, '%', empty labels
  const top = labels[labels.length - 1];
  if (!TOP_LABEL.test(top)) return false; // IPv4 literals end in digits
  return top !== 'localhost';
}

/** The median of a list of numbers (the mean of the middle two for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
