import { z } from 'zod';

/** Roles a user may choose on the "Choose Your Role" screen (admin is never chosen). */
export const CHOOSABLE_ROLES = ['poster', 'tester'] as const;
export const USER_LOCATIONS = ['USA', 'PR'] as const;
export const USER_COUNTRIES = ['US', 'PR', 'CA'] as const;
export type ChoosableRole = (typeof CHOOSABLE_ROLES)[number];
export type UserLocation = (typeof USER_LOCATIONS)[number];
export type UserCountry = (typeof USER_COUNTRIES)[number];

export const identityMessages = {
  role: 'Please choose a role',
  location: 'Please choose a location',
  country: 'Please choose a country',
  approved: 'Please say whether the tester is approved',
  sessionId: 'A sign-in session id is required',
  /** Sign-in refusal and dashboard copy for a tester unapproved by the strike rule. */
  testerReleased:
    'Your tester account was paused after missed deadlines (jobs not submitted in time). An admin must re-approve it before you can take jobs again.',
} as const;

const roleSchema = z.enum(CHOOSABLE_ROLES, { error: identityMessages.role });
const locationSchema = z.enum(USER_LOCATIONS, { error: identityMessages.location });
const countrySchema = z.enum(USER_COUNTRIES, { error: identityMessages.country });

/**
 * POST /api/users/init (role choice). Role and location are required; country is required
 * for testers (ignored for posters). Unknown keys are dropped, so nothing else can be set.
 */
export const initUserBodySchema = z
  .object({
    type: roleSchema,
    location: locationSchema,
    country: countrySchema.nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.type === 'tester' && !v.country) {
      ctx.addIssue({ code: 'custom', path: ['country'], message: identityMessages.country });
    }
  });
export type InitUserBody = z.infer<typeof initUserBodySchema>;

/** PATCH /api/users/profile ("Update Your Profile"). */
export const updateProfileBodySchema = z.object({ country: countrySchema });
export type UpdateProfileBody = z.infer<typeof updateProfileBodySchema>;

/** PATCH /api/admin/approve-tester/:id */
export const approveTesterBodySchema = z.object({ approved: z.boolean({ error: identityMessages.approved }) });
export type ApproveTesterBody = z.infer<typeof approveTesterBodySchema>;

/** POST /api/auth/session */
export const sessionExchangeBodySchema = z.object({
  session_id: z.string({ error: identityMessages.sessionId }).trim().min(1, { error: identityMessages.sessionId }).max(200),
});
export type SessionExchangeBody = z.infer<typeof sessionExchangeBodySchema>;

/** `intent` of GET /api/auth/google and /api/auth/dev/login: 'tester' is the Secure Tester Login. */
export const signInIntentSchema = z.enum(['poster', 'tester'], { error: 'intent must be poster or tester' }).default('poster');
export type SignInIntent = z.infer<typeof signInIntentSchema>;

/** Codes the sign-in redirects put in `#auth_error=` ('tester_released': unapproved by the strike rule). */
export const AUTH_ERROR_CODES = ['gmail_only', 'tester_not_approved', 'tester_released', 'google_failed'] as const;
export type AuthErrorCode = (typeof AUTH_ERROR_CODES)[number];

/** The user object of GET /api/me and of `{user}` answers. */
export interface UserDto {
  id: string;
  email: string;
  name: string;
  type: 'poster' | 'tester' | 'admin' | null;
  location: UserLocation | null;
  country: UserCountry | null;
  approved: boolean;
  /**
   * A tester the strike rule released (unapproved after too many missed deadlines) and no admin
   * has re-approved yet: the app says so instead of "not approved yet".
   */
  released: boolean;
  created_at: string;
}

/** A row of GET /api/admin/testers and /api/admin/available-testers. */
export interface TesterDto {
  id: string;
  email: string;
  name: string;
  approved: boolean;
  country: UserCountry | null;
  location: UserLocation | null;
  strikes: number;
  created_at: string;
}
