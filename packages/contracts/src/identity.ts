import { z } from 'zod';
import { identityMessages } from './identity-messages.js';
import {
  ASSISTIVE_TECH,
  USER_COUNTRIES,
  type AssistiveTech,
  type UserCountry,
} from './marketplace.js';

/** Roles a user may choose on the "Choose Your Role" screen (admin is never chosen). */
export const CHOOSABLE_ROLES = ['poster', 'tester'] as const;
export const USER_LOCATIONS = ['USA', 'PR'] as const;
export { USER_COUNTRIES, ASSISTIVE_TECH };
export type { UserCountry, AssistiveTech };
export type ChoosableRole = (typeof CHOOSABLE_ROLES)[number];
export type UserLocation = (typeof USER_LOCATIONS)[number];

export { identityMessages };

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

/** Assistive technology a tester uses (profile) or a job asks for ("Beyond the peers, part 1"). */
/** How the web app names each kind ("Tested by someone who uses a screen reader"). */
export const ASSISTIVE_TECH_LABELS: Record<AssistiveTech, string> = {
  screen_reader: 'a screen reader',
  keyboard_only: 'only a keyboard',
  screen_magnifier: 'a screen magnifier',
  voice_control: 'voice control',
  switch_access: 'switch access',
  captions: 'captions',
};
export const ASSISTIVE_TECH_MESSAGE = `Assistive technology must be one of: ${ASSISTIVE_TECH.join(', ')}`;
export const assistiveTechSchema = z.enum(ASSISTIVE_TECH, { error: ASSISTIVE_TECH_MESSAGE });

/**
 * PATCH /api/users/profile ("Update Your Profile"): the country, the assistive technology the
 * tester uses, or both (at least one). `assistive_tech` replaces the whole list.
 */
export const updateProfileBodySchema = z
  .object({
    country: countrySchema.optional(),
    // One message on the field itself (not on an item) for anything outside the list.
    assistive_tech: z
      .array(z.unknown(), { error: ASSISTIVE_TECH_MESSAGE })
      .refine(
        (list): list is AssistiveTech[] =>
          list.every((v) => (ASSISTIVE_TECH as readonly unknown[]).includes(v)),
        { error: ASSISTIVE_TECH_MESSAGE },
      )
      .transform((list) => [...new Set(list as AssistiveTech[])])
      .meta({ items: { type: 'string', enum: [...ASSISTIVE_TECH] } })
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.country === undefined && v.assistive_tech === undefined)
      ctx.addIssue({ code: 'custom', path: ['country'], message: identityMessages.country });
  });
export type UpdateProfileBody = z.infer<typeof updateProfileBodySchema>;

/** PATCH /api/admin/approve-tester/:id */
export const approveTesterBodySchema = z.object({
  approved: z.boolean({ error: identityMessages.approved }),
});
export type ApproveTesterBody = z.infer<typeof approveTesterBodySchema>;

/** POST /api/auth/session */
export const sessionExchangeBodySchema = z.object({
  session_id: z
    .string({ error: identityMessages.sessionId })
    .trim()
    .min(1, { error: identityMessages.sessionId })
    .max(200),
});
export type SessionExchangeBody = z.infer<typeof sessionExchangeBodySchema>;

/** `intent` of GET /api/auth/google and /api/auth/dev/login: 'tester' is the Secure Tester Login. */
export const signInIntentSchema = z
  .enum(['poster', 'tester'], { error: 'intent must be poster or tester' })
  .default('poster');
export type SignInIntent = z.infer<typeof signInIntentSchema>;

/**
 * Codes the sign-in redirects put in `#auth_error=`. Through the tester entrance (intent=tester):
 * 'tester_not_approved' a tester not approved (waiting, or un-approved by the admin), 'tester_released'
 * no longer sent (a tester released by the strike rule now signs in to the paused dashboard and its
 * appeal form, #34; kept so an old link still shows its message), 'tester_signup_needed' someone not signed up as a tester (new, or no role yet),
 * 'tester_signup_pending' someone who signed up to test on the landing page, not approved yet,
 * 'site_owner_account' a site owner (poster) account.
 */
export const AUTH_ERROR_CODES = [
  'gmail_only',
  'tester_not_approved',
  'tester_released',
  'tester_signup_needed',
  'tester_signup_pending',
  'site_owner_account',
  'google_failed',
] as const;
export type AuthErrorCode = (typeof AUTH_ERROR_CODES)[number];

/** The user object of GET /api/me and of `{user}` answers. */
export const userDtoSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  type: z.enum(['poster', 'tester', 'admin']).nullable(),
  location: z.enum(USER_LOCATIONS).nullable(),
  country: z.enum(USER_COUNTRIES).nullable(),
  approved: z.boolean(),
  /**
   * A tester the strike rule released (unapproved after too many missed deadlines) and no admin
   * has re-approved yet: the app says so instead of "not approved yet".
   */
  released: z.boolean(),
  created_at: z.string(),
  /** Testers only: what assistive technology they use (empty by default). */
  assistive_tech: z.array(z.enum(ASSISTIVE_TECH)).optional(),
  /** Testers only: their average rating (one decimal) over `rating_count` ratings; null before the first. */
  rating_avg: z.number().nullable().optional(),
  rating_count: z.number().int().optional(),
});
export type UserDto = z.infer<typeof userDtoSchema>;

/** A row of GET /api/admin/testers and /api/admin/available-testers. */
export const testerDtoSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  approved: z.boolean(),
  country: z.enum(USER_COUNTRIES).nullable(),
  location: z.enum(USER_LOCATIONS).nullable(),
  strikes: z.number().int(),
  created_at: z.string(),
  assistive_tech: z.array(z.enum(ASSISTIVE_TECH)),
  rating_avg: z.number().nullable(),
  rating_count: z.number().int(),
});
export type TesterDto = z.infer<typeof testerDtoSchema>;

/** GET /api/admin/testers query: `assistive_tech` keeps the testers who use it. */
export const adminTestersQuerySchema = z.object({ assistive_tech: assistiveTechSchema.optional() });
export type AdminTestersQuery = z.infer<typeof adminTestersQuerySchema>;

/** A tester's average rating as the API shows it: one decimal (half up), null without ratings. */
export function ratingAverage(sum: number, count: number): number | null {
  if (!count) return null;
  return Math.round((sum * 10) / count) / 10;
}

/** One of the user's active sign-ins (GET /api/auth/sessions): a browser that may refresh its token. */
export const signInViewSchema = z.object({
  id: z.string().describe('the sign-in session (the `sid` of its access tokens)'),
  device: z
    .string()
    .describe('browser and system named from the User-Agent, e.g. "Chrome on Windows"'),
  user_agent: z.string().nullable(),
  created_at: z.string().describe('when this sign-in started'),
  last_used_at: z.string().describe('its latest token refresh'),
  expires_at: z.string().describe('it ends then whatever happens'),
  current: z.boolean().describe('the sign-in of the token that asked'),
});
export type SignInView = z.infer<typeof signInViewSchema>;
export const signInsResponseSchema = z.object({ sessions: z.array(signInViewSchema) });
export type SignInsResponse = z.infer<typeof signInsResponseSchema>;
/** POST /api/auth/logout-all: every sign-in of the user ended (this browser's included). */
export const logoutAllResponseSchema = z.object({
  success: z.literal(true),
  ended: z.number().int(),
});

/** POST /api/auth/session and /api/auth/refresh: a new access token (the refresh cookie is set beside it). */
export const accessTokenResponseSchema = z.object({ access_token: z.string() });
export type AccessTokenResponse = z.infer<typeof accessTokenResponseSchema>;
/** POST /api/auth/logout, DELETE /api/auth/sessions/{id}. */
export const successResponseSchema = z.object({ success: z.literal(true) });
/** POST /api/users/init, PATCH /api/users/profile: the user and a new access token carrying the change. */
export const userWithTokenResponseSchema = z.object({
  user: userDtoSchema,
  access_token: z.string(),
});
export type UserWithTokenResponse = z.infer<typeof userWithTokenResponseSchema>;
/** GET /api/admin/testers and /api/admin/available-testers. */
export const testersResponseSchema = z.object({ testers: z.array(testerDtoSchema) });
export type TestersResponse = z.infer<typeof testersResponseSchema>;
/** PATCH /api/admin/approve-tester/{id}. */
export const testerResponseSchema = z.object({ tester: testerDtoSchema });
