import { isPublicWebUrl } from '@htm/contracts/common';
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
  urlRequired: 'Website URL is required',
  needsRequired: 'Please describe your testing needs',
  noteTooLong: 'Note must be 2000 characters or less',
  thoughtsRequired: 'Please share your thoughts',
  fillAllFields: 'Please fill in all fields',
  waitlistSuccess:
    "Successfully joined waitlist! We'll notify you when we support all email providers.",
  waitlistFailure: 'Failed to join waitlist',
  alreadySignedUp: "Already signed up! You'll hear from us soon.",
  signupFailure: 'Failed to sign up. Please try again.',
  signupFallback: 'Failed to sign up',
  signupOk: "You're signed up! We'll e-mail you as soon as an admin approves your tester account.",
  signInFirst: 'Please sign in first',
  jobRequestFailure: 'Failed to create job. Please try again.',
  jobRequestOk: "Job request received! We'll follow up by e-mail within 24 hours.",
  failure: 'Something went wrong. Please try again.',
  leadOk: "Thanks! We'll reply by e-mail within one business day.",
} as const;

/** Tester waitlist (name, email): name min 2, email required, else 'Please fill in all fields'. */
export function canSubmitWaitlist(name: string, email: string): boolean {
  return Boolean(name.trim() && email.trim());
}
export function validateWaitlist(name: string, email: string): string | null {
  if (name.trim().length < 2 || !email.trim() || !isEmail(email)) return MSG.fillAllFields;
  return null;
}

export interface TesterSignup {
  email: string;
  role: string;
  contact: string;
  about: string;
}
export function validateTesterSignup(v: TesterSignup): Record<string, string> {
  const e: Record<string, string> = {};
  if (!v.email.trim()) e.email = 'Email is required';
  else if (!isEmail(v.email)) e.email = 'Please enter a valid email address';
  if (!(TESTER_ROLES as readonly string[]).includes(v.role)) e.role = MSG.roleRequired;
  if (v.contact.trim() && !isPublicWebUrl(v.contact.trim())) e.contact = MSG.urlInvalid;
  if (v.about.trim().length > 2000) e.about = MSG.noteTooLong;
  return e;
}

export interface JobRequest {
  email: string;
  url: string;
  needs: string;
}
export function validateJobRequest(v: JobRequest): Record<string, string> {
  const e: Record<string, string> = {};
  if (!v.email.trim()) e.email = 'Email is required';
  else if (!isEmail(v.email)) e.email = 'Please enter a valid email address';
  if (!v.url.trim()) e.url = MSG.urlRequired;
  else if (!isPublicWebUrl(v.url.trim())) e.url = MSG.urlInvalid;
  if (!v.needs.trim()) e.needs = MSG.needsRequired;
  return e;
}

export function validateLead(email: string, thoughts: string): Record<string, string> {
  const e: Record<string, string> = {};
  if (!email.trim()) e.email = 'Email is required';
  else if (!isEmail(email)) e.email = 'Please enter a valid email address';
  if (!thoughts.trim()) e.thoughts = MSG.thoughtsRequired;
  return e;
}
