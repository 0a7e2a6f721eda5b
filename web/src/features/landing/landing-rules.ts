import { LOCAL_URL_MESSAGE, webUrlProblem } from '@htm/contracts/common';
import { isEmail } from '../../lib/format';

export const TESTER_ROLES = [
  'Tester (9-to-5)',
  'Tester (Global community)',
  'Tester (indie/agency)',
  'Tester (student)',
] as const;
export const SITE_OWNER_ROLE = 'Site owner';

/**
 * Copies of WAITLIST_MESSAGES / LEAD_MESSAGES of @htm/contracts/admin (a test checks they are
 * identical): importing the contracts module here would pull zod into the landing page's
 * initial bundle.
 */
export const MSG = {
  roleRequired: 'Please choose a role',
  urlInvalid: 'Please enter a valid URL (starting with http:// or https://)',
  urlLocal: LOCAL_URL_MESSAGE,
  urlRequired: 'Website URL is required',
  needsRequired: 'Please describe your testing needs',
  noteTooLong: 'Note must be 2000 characters or less',
  thoughtsRequired: 'Please share your thoughts',
  fillAllFields: 'Please fill in all fields',
  nameRequired: 'Name is required',
  nameTooShort: 'Name must be at least 2 characters',
  emailRequired: 'Email is required',
  emailInvalid: 'Please enter a valid email address',
  gmailOnly:
    'Sign-in is through Google, so testers need a Gmail address for now. No Gmail? Join the waitlist below and we will tell you when your provider works.',
  thoughtsTooLong: 'Your message must be 5000 characters or less',
  waitlistSuccess:
    "Successfully joined waitlist! We'll notify you when we support all email providers.",
  waitlistFailure: 'Failed to join waitlist',
  alreadySignedUp: "Already signed up! You'll hear from us soon.",
  signupFailure: 'Failed to sign up. Please try again.',
  signupFallback: 'Failed to sign up',
  signupOk: "You're signed up! We'll e-mail you as soon as an admin approves your tester account.",
  signInFirst: 'Please sign in first',
  signInToContinue: 'Sign in with Google to continue',
  jobRequestNext:
    'What happens next: sign in with Google, Post New Job opens with this filled in, and you pay $1 at checkout. Nothing is charged before that.',
  jobRequestNextSignedIn:
    'Post New Job opens on your dashboard with this filled in: check it and pay $1 at checkout.',
  draftKept:
    'Your request is kept: after you sign in, Post New Job opens with it, ready to pay $1.',
  jobRequestFailure: 'Failed to create job. Please try again.',
  jobRequestOk: "Job request received! We'll follow up by e-mail within 24 hours.",
  failure: 'Something went wrong. Please try again.',
  leadOk: "Thanks! We'll reply by e-mail within one business day.",
} as const;

/** Tester waitlist (name, email): submit needs both filled. */
export function canSubmitWaitlist(name: string, email: string): boolean {
  return Boolean(name.trim() && email.trim());
}
/** Tester waitlist: what is wrong with each field (name at least 2 characters, a valid e-mail). */
export function validateWaitlist(name: string, email: string): Record<string, string> {
  const e: Record<string, string> = {};
  if (!name.trim()) e.name = MSG.nameRequired;
  else if (name.trim().length < 2) e.name = MSG.nameTooShort;
  const mail = emailProblem(email);
  if (mail) e.email = mail;
  return e;
}

function emailProblem(email: string): string | null {
  if (!email.trim()) return MSG.emailRequired;
  if (!isEmail(email)) return MSG.emailInvalid;
  return null;
}

function urlProblem(url: string): string | null {
  const problem = webUrlProblem(url.trim());
  if (problem === 'local') return MSG.urlLocal;
  if (problem) return MSG.urlInvalid;
  return null;
}

/** The sign-in rule of identity: Gmail (gmail.com, googlemail.com) only. */
export function isGmail(email: string): boolean {
  const domain = email.trim().toLowerCase().split('@').pop();
  return domain === 'gmail.com' || domain === 'googlemail.com';
}

export interface TesterSignup {
  email: string;
  role: string;
  contact: string;
  about: string;
}
/**
 * A contact address as people type it: 'linkedin.com/in/x' or 'www.site.com' gets https://
 * in front; anything with a scheme (or empty) is kept as typed.
 */
export function withHttps(text: string): string {
  const t = text.trim();
  if (!t || /^[a-z][a-z0-9+.-]*:/i.test(t)) return t;
  return `https://${t.replace(/^\/+/, '')}`;
}

export function validateTesterSignup(v: TesterSignup): Record<string, string> {
  const e: Record<string, string> = {};
  const mail = emailProblem(v.email);
  if (mail) e.email = mail;
  else if (!isGmail(v.email)) e.email = MSG.gmailOnly;
  if (!(TESTER_ROLES as readonly string[]).includes(v.role)) e.role = MSG.roleRequired;
  const contact = v.contact.trim() ? urlProblem(withHttps(v.contact)) : null;
  if (contact) e.contact = contact;
  if (v.about.trim().length > 2000) e.about = MSG.noteTooLong;
  return e;
}

export interface JobRequest {
  email: string;
  url: string;
  needs: string;
}
/** The job request's problems; a signed-in visitor is not asked for an e-mail (`needsEmail` false). */
export function validateJobRequest(v: JobRequest, needsEmail = true): Record<string, string> {
  const e: Record<string, string> = {};
  const mail = needsEmail ? emailProblem(v.email) : null;
  if (mail) e.email = mail;
  const url = v.url.trim() ? urlProblem(v.url) : MSG.urlRequired;
  if (url) e.url = url;
  if (!v.needs.trim()) e.needs = MSG.needsRequired;
  else if (v.needs.trim().length > 2000) e.needs = MSG.noteTooLong;
  return e;
}

export function validateLead(email: string, thoughts: string): Record<string, string> {
  const e: Record<string, string> = {};
  const mail = emailProblem(email);
  if (mail) e.email = mail;
  if (!thoughts.trim()) e.thoughts = MSG.thoughtsRequired;
  else if (thoughts.trim().length > 5000) e.thoughts = MSG.thoughtsTooLong;
  return e;
}
