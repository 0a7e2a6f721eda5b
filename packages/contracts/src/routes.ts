import { z } from 'zod';
import {
  accessTokenResponseSchema,
  adminTestersQuerySchema,
  approveTesterBodySchema,
  initUserBodySchema,
  logoutAllResponseSchema,
  sessionExchangeBodySchema,
  signInsResponseSchema,
  successResponseSchema,
  testerResponseSchema,
  testersResponseSchema,
  updateProfileBodySchema,
  userDtoSchema,
  userWithTokenResponseSchema,
} from './identity.js';
import { adminPrivacySchema, dataExportSchema, accountDeletionSchema, deletionBodySchema, privacyStatusSchema } from './privacy.js';
import {
  acceptJobBodySchema,
  availableJobsPageSchema,
  availableJobsQuerySchema,
  checkoutAnswerSchema,
  createJobBodySchema,
  jobResponseSchema,
  jobsListResponseSchema,
  myJobsResponseSchema,
  packViewSchema,
  rateJobBodySchema,
  ratingResponseSchema,
  retestComparisonViewSchema,
  reviewBodySchema,
  reviewResponseSchema,
  submissionViewSchema,
  submitWorkResponseSchema,
  testerStandingSchema,
} from './jobs.js';
import {
  cashOutResponseSchema,
  checkoutStatusResponseSchema,
  earningsResponseSchema,
  financialOverviewSchema,
  payoutAccountResponseSchema,
  payoutRunResponseSchema,
  providerWebhookResponseSchema,
} from './payments.js';
import {
  adminAuditQuerySchema,
  adminListQuerySchema,
  adminWaitlistQuerySchema,
  auditPageSchema,
  clearJobsBodySchema,
  clearJobsPreviewSchema,
  clearJobsResultSchema,
  approveWaitlistBodySchema,
  deadLettersViewSchema,
  feedbackBodySchema,
  feedbackPageSchema,
  feedbackSentResponseSchema,
  formSentResponseSchema,
  leadBodySchema,
  leadsPageSchema,
  replayDeadLettersResultSchema,
  telemetryAcceptedResponseSchema,
  telemetryBodySchema,
  waitlistBodySchema,
  waitlistEntryResponseSchema,
  waitlistPageSchema,
} from './admin.js';
import {
  sendFindingBodySchema,
  sharedReportViewSchema,
  shareLinkBodySchema,
  shareLinkResponseSchema,
  trackerIssuesResponseSchema,
  trackerIssueViewSchema,
  trackersViewSchema,
  webhookDeliveriesResponseSchema,
  webhookDeliveryResponseSchema,
  webhookEndpointBodySchema,
  webhookEndpointCreatedSchema,
  webhookEndpointsResponseSchema,
} from './reports.js';
import {
  devMailQuerySchema,
  devMailResponseSchema,
  notificationPreferencesBodySchema,
  notificationPreferencesResponseSchema,
  unsubscribedResponseSchema,
  unsubscribeQuerySchema,
} from './notifications.js';
import { insightsQuerySchema, insightsResponseSchema, publicProofResponseSchema } from './analytics.js';
import { favouriteBodySchema, favouriteResponseSchema, favouritesResponseSchema } from './favourites.js';
import { adminAppealsQuerySchema, adminAppealsResponseSchema, appealBodySchema, appealDecisionBodySchema, appealResponseSchema, myAppealsResponseSchema } from './appeals.js';

export type ServiceName = 'identity' | 'jobs' | 'payments' | 'admin' | 'notifications' | 'analytics';
export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';
/**
 * public: no token needed; optional: a token is verified when sent (signed file links, forms that
 * read the caller); user: a valid access token is required before the request leaves the gateway.
 */
export type Access = 'public' | 'optional' | 'user';
/** `provider`: routes that may call the payment provider (Stripe), limited per user on their own. */
export type RateClass = 'auth' | 'form' | 'api' | 'provider' | 'none';
export type Role = 'poster' | 'tester' | 'admin';

export interface Operation {
  method: HttpMethod;
  /** OpenAPI-style template, e.g. /api/jobs/{id}/claim */
  path: string;
  service: ServiceName;
  access: Access;
  rate: RateClass;
  summary: string;
  /** Roles the owning service admits (documentation and the authorization matrix). */
  roles?: readonly Role[];
  body?: z.ZodType;
  multipart?: readonly string[];
  query?: z.ZodType;
  /** The JSON body of the success answer (status `status`). */
  response?: z.ZodType;
  /** Success status (default 200). 204 answers no body; 302 and 303 redirect (Location). */
  status?: number;
  /**
   * Media types of a success answer that is not JSON (a file, a PDF, a page), or of another form
   * of it beside `response` (text/csv for export=csv, a page for a browser).
   */
  produces?: readonly string[];
  /** The success answer has no body whatever its status (tus creation: 201 with Location). */
  noBody?: boolean;
  /** Other success statuses than `status`, with what they mean (same body). */
  also?: Record<number, string>;
  upload?: boolean;
  /** Answers a file or an export a slow client may take long to read (proxied outside the gateway's pooled connections). */
  download?: boolean;
}

/**
 * Every route of ARCHITECTURE.md's ownership table: the gateway routes from it, OpenAPI documents
 * it, and each service mounts its express routes from it (service-kit's catalogueRoutes).
 */
const CATALOGUE = [
  // identity
  { method: 'get', path: '/api/auth/google', service: 'identity', access: 'public', rate: 'auth', summary: 'Start Google sign-in (query intent=poster|tester); the DEV sign-in page when Google is not configured', status: 302, produces: ['text/html'], also: { 200: 'The DEV sign-in page (text/html) when Google is not configured' } },
  { method: 'get', path: '/api/auth/google/callback', service: 'identity', access: 'public', rate: 'auth', summary: 'Google OAuth callback; redirects to /#session_id=S', status: 302 },
  { method: 'get', path: '/api/auth/dev/login', service: 'identity', access: 'public', rate: 'auth', summary: 'Development sign-in (email, name, intent); refused in production', status: 302 },
  { method: 'post', path: '/api/auth/session', service: 'identity', access: 'public', rate: 'auth', summary: 'Exchange a single-use session id for an access token; sets the refresh cookie', body: sessionExchangeBodySchema, response: accessTokenResponseSchema },
  { method: 'post', path: '/api/auth/refresh', service: 'identity', access: 'public', rate: 'auth', summary: 'Rotate the refresh cookie (X-XSRF-TOKEN required) and get a new access token', response: accessTokenResponseSchema },
  { method: 'post', path: '/api/auth/logout', service: 'identity', access: 'public', rate: 'auth', summary: 'Revoke the refresh session and clear cookies', response: successResponseSchema },
  { method: 'post', path: '/api/auth/logout-all', service: 'identity', access: 'public', rate: 'auth', summary: 'Log out everywhere: end every sign-in of the refresh cookie\'s user (X-XSRF-TOKEN required) and clear cookies', response: logoutAllResponseSchema },
  { method: 'get', path: '/api/auth/sessions', service: 'identity', access: 'user', rate: 'api', summary: "The caller's active sign-ins (device, last used), the current one marked", response: signInsResponseSchema, roles: ['poster', 'tester', 'admin'] },
  { method: 'delete', path: '/api/auth/sessions/{id}', service: 'identity', access: 'user', rate: 'api', summary: 'End one of the caller\'s own sign-ins (404 session_not_found for any other)', roles: ['poster', 'tester', 'admin'], response: successResponseSchema },
  { method: 'get', path: '/api/me', service: 'identity', access: 'user', rate: 'api', summary: 'The signed-in user', roles: ['poster', 'tester', 'admin'], response: userDtoSchema },
  { method: 'post', path: '/api/users/init', service: 'identity', access: 'user', rate: 'api', summary: 'Choose role, location and (testers) country, once', body: initUserBodySchema, response: userWithTokenResponseSchema },
  { method: 'patch', path: '/api/users/profile', service: 'identity', access: 'user', rate: 'api', summary: 'Update country and/or assistive_tech (testers)', body: updateProfileBodySchema, roles: ['poster', 'tester', 'admin'], response: userWithTokenResponseSchema },
  { method: 'get', path: '/api/me/privacy', service: 'identity', access: 'user', rate: 'api', summary: "The caller's latest data export (progress, download expiry) and account deletion (grace period end)", response: privacyStatusSchema, roles: ['poster', 'tester', 'admin'] },
  { method: 'post', path: '/api/me/exports', service: 'identity', access: 'user', rate: 'api', summary: 'Download my data: start building a zip of everything every service holds about the caller (one a day; 429 export_daily_limit); e-mailed when ready', response: z.object({ export: dataExportSchema }), status: 202, roles: ['poster', 'tester', 'admin'] },
  { method: 'get', path: '/api/me/exports/{id}/download', service: 'identity', access: 'public', rate: 'api', summary: 'The export zip, by the signed link of the e-mail (expires and sig; valid 24 h)', download: true, produces: ['application/zip'] },
  { method: 'post', path: '/api/me/deletion', service: 'identity', access: 'user', rate: 'api', summary: 'Delete my account: type the e-mail to confirm; every sign-in ends; erased after the grace period unless the user signs in again (409 deletion_blocked says what to do first)', body: deletionBodySchema, response: z.object({ deletion: accountDeletionSchema }), status: 202, roles: ['poster', 'tester'] },
  { method: 'get', path: '/api/admin/privacy', service: 'identity', access: 'user', rate: 'api', summary: 'Pending and recent data exports and account deletions', response: adminPrivacySchema, roles: ['admin'] },
  { method: 'post', path: '/api/admin/users/{id}/export', service: 'identity', access: 'user', rate: 'api', summary: 'Run a data export for a user who asked by e-mail (audited); the link goes to the user', response: z.object({ export: dataExportSchema }), status: 202, roles: ['admin'] },
  { method: 'post', path: '/api/admin/users/{id}/deletion', service: 'identity', access: 'user', rate: 'api', summary: "Schedule the deletion of a user who asked by e-mail (their e-mail typed to confirm; audited)", body: deletionBodySchema, response: z.object({ deletion: accountDeletionSchema }), status: 202, roles: ['admin'] },
  { method: 'get', path: '/api/admin/testers', service: 'identity', access: 'user', rate: 'api', summary: 'All testers with approval, strikes, rating_avg/rating_count and assistive_tech (filter: assistive_tech)', query: adminTestersQuerySchema, roles: ['admin'], response: testersResponseSchema },
  { method: 'get', path: '/api/admin/available-testers', service: 'identity', access: 'user', rate: 'api', summary: 'Approved testers', roles: ['admin'], response: testersResponseSchema },
  { method: 'patch', path: '/api/admin/approve-tester/{id}', service: 'identity', access: 'user', rate: 'api', summary: 'Approve or unapprove a tester', body: approveTesterBodySchema, roles: ['admin'], response: testerResponseSchema },
  // jobs
  { method: 'get', path: '/api/jobs', service: 'jobs', access: 'user', rate: 'api', summary: "A poster's own jobs; every job (with poster_info) for the admin", roles: ['poster', 'admin'], response: jobsListResponseSchema },
  { method: 'post', path: '/api/jobs', service: 'jobs', access: 'user', rate: 'api', summary: 'Post a job (testers 1-10: a pack of that many jobs); answers one checkout session for testers × $1', body: createJobBodySchema, roles: ['poster', 'admin'], status: 201, response: checkoutAnswerSchema },
  { method: 'post', path: '/api/jobs/{id}/retest', service: 'jobs', access: 'user', rate: 'api', summary: "Re-test a completed job (its poster only; the admin for a job the admin posted): a new job for the same tester, with a checkout session", roles: ['poster', 'admin'], status: 201, response: checkoutAnswerSchema },
  { method: 'get', path: '/api/jobs/{id}/before-after', service: 'jobs', access: 'user', rate: 'api', summary: "A re-test's findings beside the original's, per checklist item and key finding", roles: ['poster', 'tester', 'admin'], response: retestComparisonViewSchema },
  { method: 'delete', path: '/api/jobs/{id}', service: 'jobs', access: 'user', rate: 'api', summary: 'The poster deletes an unpaid job (409 already_paid once paid)', roles: ['poster', 'admin'], status: 204 },
  { method: 'post', path: '/api/jobs/{id}/checkout', service: 'jobs', access: 'user', rate: 'api', summary: 'A new checkout session for an unpaid job', roles: ['poster', 'admin'], response: checkoutAnswerSchema },
  { method: 'post', path: '/api/jobs/{id}/claim', service: 'jobs', access: 'user', rate: 'api', summary: 'Claim a paid open job (approved, geo-eligible testers)', roles: ['tester'], response: jobResponseSchema },
  { method: 'post', path: '/api/jobs/{id}/accept', service: 'jobs', access: 'user', rate: 'api', summary: 'A tester takes a paid open job (same as claim); the admin assigns it to the tester named by tester_id', body: acceptJobBodySchema, roles: ['tester', 'admin'], response: jobResponseSchema },
  { method: 'patch', path: '/api/jobs/{id}/complete', service: 'jobs', access: 'user', rate: 'api', summary: 'Admin accepts a submission on the poster\'s behalf', roles: ['admin'], response: reviewResponseSchema },
  { method: 'post', path: '/api/jobs/{id}/submit-work', service: 'jobs', access: 'user', rate: 'api', summary: 'Submit work (dashboard variant, multipart)', multipart: ['feedback_text', 'key_finding_1', 'key_finding_2', 'key_finding_3', 'minutes_spent', 'screenshot'], roles: ['tester'], status: 201, upload: true, response: submitWorkResponseSchema },
  { method: 'post', path: '/api/jobs/{id}/submissions', service: 'jobs', access: 'user', rate: 'api', summary: 'Submit work (poster-flow variant, multipart)', multipart: ['requirement_responses', 'general_feedback', 'device_used', 'browser_used', 'key_findings_bullet_1', 'key_findings_bullet_2', 'key_findings_bullet_3', 'minutes_spent', 'files'], roles: ['tester'], status: 201, upload: true, response: submitWorkResponseSchema },
  { method: 'get', path: '/api/jobs/{id}/submission', service: 'jobs', access: 'user', rate: 'api', summary: "The job's submission (preview only for the poster until accepted)", roles: ['poster', 'tester', 'admin'], response: submissionViewSchema },
  { method: 'post', path: '/api/jobs/{id}/review', service: 'jobs', access: 'user', rate: 'api', summary: 'Accept or request a revision', body: reviewBodySchema, roles: ['poster', 'admin'], response: reviewResponseSchema },
  { method: 'post', path: '/api/jobs/{id}/rating', service: 'jobs', access: 'user', rate: 'api', summary: "The poster rates the tester of a completed job, once (stars 1-5, optional comment)", body: rateJobBodySchema, roles: ['poster'], status: 201, response: ratingResponseSchema },
  { method: 'get', path: '/api/packs/{id}', service: 'jobs', access: 'user', rate: 'api', summary: 'A pack (several testers ordered in one checkout): its progress, its jobs and clusters of the findings several testers agree on (the poster, the admin)', roles: ['poster', 'admin'], response: packViewSchema },
  { method: 'get', path: '/api/tester/available-jobs', service: 'jobs', access: 'user', rate: 'api', summary: 'Paid open jobs the tester may take, newest first, keyset-paginated', query: availableJobsQuerySchema, roles: ['tester'], response: availableJobsPageSchema },
  { method: 'get', path: '/api/tester/my-jobs', service: 'jobs', access: 'user', rate: 'api', summary: "The tester's jobs", roles: ['tester'], response: myJobsResponseSchema },
  { method: 'get', path: '/api/tester/standing', service: 'jobs', access: 'user', rate: 'api', summary: "The tester's jobs completed, acceptance rate, average rating and level (New, Trusted, Top) with what the next level needs", response: testerStandingSchema, roles: ['tester'] },
  { method: 'get', path: '/api/files/{id}', service: 'jobs', access: 'optional', rate: 'api', summary: 'An uploaded file (signed link or bearer token); ?download=1 as attachment', roles: ['poster', 'tester', 'admin'], download: true, produces: ['application/octet-stream'] },
  // Screen recordings over tus 1.0 (issue #30): streamed, never buffered by the gateway. HEAD is answered like GET.
  { method: 'post', path: '/api/recordings', service: 'jobs', access: 'user', rate: 'api', summary: 'tus 1.0 creation of a screen recording upload (Tus-Resumable, Upload-Length or Upload-Defer-Length: 1, Upload-Metadata job_id + filetype); 201 with Location', roles: ['tester'], status: 201, upload: true, noBody: true },
  { method: 'patch', path: '/api/recordings/{id}', service: 'jobs', access: 'user', rate: 'api', summary: 'tus 1.0 PATCH: the next bytes of a recording at Upload-Offset (application/offset+octet-stream); 204', roles: ['tester'], status: 204, upload: true },
  { method: 'get', path: '/api/recordings/{id}', service: 'jobs', access: 'optional', rate: 'api', summary: 'A recording for the player (signed link or bearer token; Range answers 206); HEAD with a token is the tus offset of an upload', roles: ['poster', 'tester', 'admin'], download: true, produces: ['video/webm', 'video/mp4'], also: { 206: 'One byte range of the recording (Range)' } },
  { method: 'post', path: '/api/jobs/{id}/share', service: 'jobs', access: 'user', rate: 'api', summary: "The job's share link (one live link per job; asking again answers the same link); the job must have a submission", body: shareLinkBodySchema, response: shareLinkResponseSchema, roles: ['poster', 'admin'], status: 201 },
  { method: 'delete', path: '/api/jobs/{id}/share', service: 'jobs', access: 'user', rate: 'api', summary: "Revoke the job's share link", roles: ['poster', 'admin'], status: 204 },
  { method: 'get', path: '/api/jobs/{id}/report.pdf', service: 'jobs', access: 'user', rate: 'api', summary: 'The report as a PDF (attachment report-<first 8 of id>.pdf)', roles: ['poster', 'admin'], download: true, produces: ['application/pdf'] },
  { method: 'get', path: '/api/shared/{token}', service: 'jobs', access: 'public', rate: 'api', summary: 'The shared report as JSON (404 link_gone when revoked, expired or unknown)', response: sharedReportViewSchema },
  { method: 'get', path: '/api/shared/{token}/report.pdf', service: 'jobs', access: 'public', rate: 'api', summary: 'The shared report as a PDF', download: true, produces: ['application/pdf'] },
  { method: 'get', path: '/api/shared/{token}/recording', service: 'jobs', access: 'public', rate: 'api', summary: "The shared job's screen recording (Range requests answer 206; 404 once the link is revoked or expired)", download: true, produces: ['video/webm', 'video/mp4'], also: { 206: 'One byte range of the recording (Range)' } },
  { method: 'get', path: '/api/shared/{token}/files/{fileId}', service: 'jobs', access: 'public', rate: 'api', summary: "A screenshot or recording of the shared job's submission", download: true, produces: ['application/octet-stream'] },
  { method: 'get', path: '/r/{token}', service: 'jobs', access: 'public', rate: 'api', summary: 'The read-only report page of a share link (no script; noindex, no-referrer)', produces: ['text/html'] },
  { method: 'post', path: '/api/webhook-endpoints', service: 'jobs', access: 'user', rate: 'api', summary: 'Add a webhook endpoint {url, events?}; answers its whsec_ signing secret, once', body: webhookEndpointBodySchema, roles: ['poster', 'admin'], status: 201, response: webhookEndpointCreatedSchema },
  { method: 'get', path: '/api/webhook-endpoints', service: 'jobs', access: 'user', rate: 'api', summary: "The caller's webhook endpoints (no secrets)", roles: ['poster', 'admin'], response: webhookEndpointsResponseSchema },
  { method: 'delete', path: '/api/webhook-endpoints/{id}', service: 'jobs', access: 'user', rate: 'api', summary: 'Remove a webhook endpoint and its deliveries', roles: ['poster', 'admin'], status: 204 },
  { method: 'get', path: '/api/webhook-endpoints/{id}/deliveries', service: 'jobs', access: 'user', rate: 'api', summary: "An endpoint's latest deliveries: event, status, attempts, last response code, next attempt", roles: ['poster', 'admin'], response: webhookDeliveriesResponseSchema },
  { method: 'post', path: '/api/webhook-endpoints/{id}/test', service: 'jobs', access: 'user', rate: 'api', summary: 'Send webhook.test to the endpoint', roles: ['poster', 'admin'], status: 202, response: webhookDeliveryResponseSchema },
  { method: 'post', path: '/api/webhook-endpoints/{id}/deliveries/{deliveryId}/redeliver', service: 'jobs', access: 'user', rate: 'api', summary: 'Send a delivery again now (same webhook-id)', roles: ['poster', 'admin'], status: 202, response: webhookDeliveryResponseSchema },
  { method: 'get', path: '/api/trackers', service: 'jobs', access: 'user', rate: 'api', summary: "The caller's issue trackers (GitHub repository, Jira site, e-mail and project; never a token)", roles: ['poster', 'admin'], response: trackersViewSchema },
  { method: 'put', path: '/api/trackers/{kind}', service: 'jobs', access: 'user', rate: 'api', summary: 'Connect GitHub {token, repository} or Jira {site_url, email, api_token, project_key}; the token is stored AES-256-GCM encrypted', roles: ['poster', 'admin'], response: trackersViewSchema },
  { method: 'delete', path: '/api/trackers/{kind}', service: 'jobs', access: 'user', rate: 'api', summary: 'Remove an issue tracker and its token', roles: ['poster', 'admin'], status: 204 },
  { method: 'get', path: '/api/jobs/{id}/issues', service: 'jobs', access: 'user', rate: 'api', summary: "Issues made from the job's findings", roles: ['poster', 'admin'], response: trackerIssuesResponseSchema },
  { method: 'post', path: '/api/jobs/{id}/findings/{index}/issue', service: 'jobs', access: 'user', rate: 'provider', summary: 'Send a finding to GitHub or Jira {tracker}: 201 the new issue, 200 the one made before', body: sendFindingBodySchema, roles: ['poster', 'admin'], status: 201, response: trackerIssueViewSchema, also: { 200: 'The issue made before for this finding and tracker' } },
  { method: 'post', path: '/api/jobs/{id}/issue', service: 'jobs', access: 'user', rate: 'provider', summary: 'Send the whole report (every finding) to GitHub or Jira {tracker} as one issue: 201 the new issue, 200 the one made before', body: sendFindingBodySchema, roles: ['poster', 'admin'], status: 201, response: trackerIssueViewSchema, also: { 200: 'The issue made before for this report and tracker' } },
  { method: 'post', path: '/api/appeals', service: 'jobs', access: 'user', rate: 'api', summary: 'Appeal a strike or a rating of 1-2 stars once, within 14 days: 201; 409 already_appealed or appeal_window_closed; 403 not_your_appeal', body: appealBodySchema, response: appealResponseSchema, roles: ['tester'], status: 201 },
  { method: 'get', path: '/api/appeals', service: 'jobs', access: 'user', rate: 'api', summary: "The tester's strikes and ratings of 1-2 stars with their reasons, and their appeals", response: myAppealsResponseSchema, roles: ['tester'] },
  { method: 'get', path: '/api/admin/appeals', service: 'jobs', access: 'user', rate: 'api', summary: 'Appeals by status (default open), oldest first', query: adminAppealsQuerySchema, response: adminAppealsResponseSchema, roles: ['admin'] },
  { method: 'post', path: '/api/admin/appeals/{id}/decision', service: 'jobs', access: 'user', rate: 'api', summary: 'Overturn (the strike is removed, re-approving a tester it released; the rating leaves the average) or uphold; 409 appeal_decided', body: appealDecisionBodySchema, response: appealResponseSchema, roles: ['admin'] },
  { method: 'post', path: '/api/favourites', service: 'jobs', access: 'user', rate: 'api', summary: 'Favourite a tester whose work on one of your jobs you accepted: 201 (200 when already a favourite); 403 not_your_tester', body: favouriteBodySchema, response: favouriteResponseSchema, roles: ['poster'], status: 201, also: { 200: 'Already a favourite' } },
  { method: 'get', path: '/api/favourites', service: 'jobs', access: 'user', rate: 'api', summary: "The poster's favourite testers with their name, average rating and jobs done", response: favouritesResponseSchema, roles: ['poster'] },
  { method: 'delete', path: '/api/favourites/{tester_id}', service: 'jobs', access: 'user', rate: 'api', summary: 'Remove a favourite tester (204, also when they were not one)', roles: ['poster'], status: 204 },
  { method: 'post', path: '/api/admin/assign/{jobId}/{testerId}', service: 'jobs', access: 'user', rate: 'api', summary: 'Assign a paid open job to an approved, geo-eligible tester', roles: ['admin'], response: jobResponseSchema },
  // payments
  { method: 'get', path: '/api/payments/checkout/status/{session_id}', service: 'payments', access: 'user', rate: 'provider', summary: "A checkout session's payment status (asks the provider if the webhook is late)", response: checkoutStatusResponseSchema, roles: ['poster', 'admin'] },
  { method: 'post', path: '/api/payments/webhook', service: 'payments', access: 'public', rate: 'none', summary: 'Stripe webhook (signature verified on the raw body)', response: providerWebhookResponseSchema },
  { method: 'get', path: '/api/payments/local/checkout/{session_id}', service: 'payments', access: 'public', rate: 'form', summary: 'Local checkout page (PAYMENTS_PROVIDER=local)', produces: ['text/html'] },
  { method: 'post', path: '/api/payments/local/checkout/{session_id}/pay', service: 'payments', access: 'public', rate: 'form', summary: 'Local checkout: pay (sends the signed webhook), 303 to /payment/success', status: 303 },
  { method: 'post', path: '/api/payments/local/checkout/{session_id}/cancel', service: 'payments', access: 'public', rate: 'form', summary: 'Local checkout: cancel, 303 to /payment/cancel', status: 303 },
  { method: 'get', path: '/api/tester/my-earnings', service: 'payments', access: 'user', rate: 'api', summary: "The tester's earnings from the ledger", response: earningsResponseSchema, roles: ['tester'] },
  { method: 'get', path: '/api/tester/payout-account', service: 'payments', access: 'user', rate: 'provider', summary: "The tester's payout account", response: payoutAccountResponseSchema, roles: ['tester'] },
  { method: 'post', path: '/api/tester/payout-account', service: 'payments', access: 'user', rate: 'provider', summary: 'Connect a payout account (Stripe Connect onboarding link in stripe mode)', response: payoutAccountResponseSchema, roles: ['tester'] },
  { method: 'post', path: '/api/tester/cash-out', service: 'payments', access: 'user', rate: 'provider', summary: 'Cash out every pending earning in one transfer once they reach CASH_OUT_MIN_CENTS (202); 409 below_minimum, no_payout_account or payout_in_progress; honours Idempotency-Key', response: cashOutResponseSchema, roles: ['tester'], status: 202 },
  { method: 'get', path: '/api/admin/financial-overview', service: 'payments', access: 'user', rate: 'api', summary: 'Totals over the ledger', response: financialOverviewSchema, roles: ['admin'] },
  { method: 'post', path: '/api/admin/payouts/run', service: 'payments', access: 'user', rate: 'api', summary: 'Pay every pending earning of connected testers', response: payoutRunResponseSchema, roles: ['admin'] },
  // admin
  { method: 'post', path: '/api/waitlist', service: 'admin', access: 'optional', rate: 'form', summary: 'Join the waitlist, sign up as a tester, or request a job (Site owner, signed in)', body: waitlistBodySchema, status: 201, response: formSentResponseSchema },
  { method: 'post', path: '/api/feedback', service: 'admin', access: 'optional', rate: 'form', summary: 'Send feedback', body: feedbackBodySchema, status: 201, response: feedbackSentResponseSchema },
  { method: 'post', path: '/api/leads', service: 'admin', access: 'optional', rate: 'form', summary: "'Looking for a Developer?' lead", body: leadBodySchema, status: 201, response: formSentResponseSchema },
  { method: 'post', path: '/api/telemetry', service: 'admin', access: 'optional', rate: 'api', summary: 'Client telemetry events (allow-listed), republished on the event stream', body: telemetryBodySchema, status: 202, response: telemetryAcceptedResponseSchema },
  { method: 'get', path: '/api/admin/waitlist', service: 'admin', access: 'user', rate: 'api', summary: 'Waitlist, signups and job requests (q, filters, pages, export=csv)', query: adminWaitlistQuerySchema, roles: ['admin'], download: true, response: waitlistPageSchema, produces: ['text/csv'] },
  { method: 'patch', path: '/api/admin/waitlist/{id}', service: 'admin', access: 'user', rate: 'api', summary: 'Approve or unapprove a signup', body: approveWaitlistBodySchema, roles: ['admin'], response: waitlistEntryResponseSchema },
  { method: 'get', path: '/api/admin/leads', service: 'admin', access: 'user', rate: 'api', summary: 'Developer leads (q, pages, export=csv)', query: adminListQuerySchema, roles: ['admin'], download: true, response: leadsPageSchema, produces: ['text/csv'] },
  { method: 'get', path: '/api/admin/feedback', service: 'admin', access: 'user', rate: 'api', summary: 'Feedback messages', query: adminListQuerySchema, roles: ['admin'], response: feedbackPageSchema },
  { method: 'post', path: '/api/admin/clear-jobs/preview', service: 'admin', access: 'user', rate: 'api', summary: 'What clear-all would delete and refund, with a confirmation for exactly that (5 minutes, single use)', roles: ['admin'], response: clearJobsPreviewSchema },
  { method: 'post', path: '/api/admin/clear-jobs', service: 'admin', access: 'user', rate: 'api', summary: 'Delete every job, submission and file, and job requests; refunds paid jobs nobody finished. Needs the confirmation of a preview of the current jobs', body: clearJobsBodySchema, roles: ['admin'], response: clearJobsResultSchema },
  { method: 'get', path: '/api/admin/audit', service: 'admin', access: 'user', rate: 'api', summary: "The admin actions' append-only audit log (filters, pages)", query: adminAuditQuerySchema, roles: ['admin'], response: auditPageSchema },
  { method: 'get', path: '/api/admin/audit.csv', service: 'admin', access: 'user', rate: 'api', summary: 'The audit log as CSV (same filters, every page)', query: adminAuditQuerySchema, roles: ['admin'], download: true, produces: ['text/csv'] },
  { method: 'get', path: '/api/admin/dead-letters', service: 'admin', access: 'user', rate: 'api', summary: 'Events no consumer could apply, per consumer group (the Overview\'s "N events need a hand")', roles: ['admin'], response: deadLettersViewSchema },
  { method: 'post', path: '/api/admin/dead-letters/replay', service: 'admin', access: 'user', rate: 'api', summary: "Have every consumer group handle its dead-lettered events again (each group's own consumers; each event applied once)", roles: ['admin'], response: replayDeadLettersResultSchema },
  // notifications
  { method: 'get', path: '/api/notifications/preferences', service: 'notifications', access: 'user', rate: 'api', summary: 'Which e-mails the signed-in user gets, per kind', roles: ['poster', 'tester', 'admin'], response: notificationPreferencesResponseSchema },
  { method: 'patch', path: '/api/notifications/preferences', service: 'notifications', access: 'user', rate: 'api', summary: 'Switch e-mail kinds on or off', body: notificationPreferencesBodySchema, roles: ['poster', 'tester', 'admin'], response: notificationPreferencesResponseSchema },
  { method: 'get', path: '/api/notifications/unsubscribe', service: 'notifications', access: 'public', rate: 'form', summary: 'One-click unsubscribe from one kind of e-mail (the link in every e-mail; answers a page)', query: unsubscribeQuerySchema, produces: ['text/html'] },
  { method: 'post', path: '/api/notifications/unsubscribe', service: 'notifications', access: 'public', rate: 'form', summary: 'RFC 8058 one-click unsubscribe (List-Unsubscribe-Post from the mail client)', query: unsubscribeQuerySchema, response: unsubscribedResponseSchema, produces: ['text/html'] },
  { method: 'get', path: '/api/dev/mail', service: 'notifications', access: 'public', rate: 'api', summary: 'Development only: e-mails sent to an address, newest first (404 in production)', query: devMailQuerySchema, response: devMailResponseSchema },
  // analytics
  { method: 'get', path: '/api/public/proof', service: 'analytics', access: 'public', rate: 'api', summary: "The landing page's live proof: tests delivered and the median hours to a first result (proof null while there is too little data)", response: publicProofResponseSchema },
  { method: 'get', path: '/api/admin/insights', service: 'analytics', access: 'user', rate: 'api', summary: 'Marketplace insights per day from the event stream (from/to: YYYY-MM-DD, at most 366 days)', query: insightsQuerySchema, response: insightsResponseSchema, roles: ['admin'] },
] as const satisfies readonly Operation[];

export const OPERATIONS: readonly Operation[] = CATALOGUE;

/** The path templates of a service's operations for one method (what its routes may mount). */
export type CataloguePath<S extends ServiceName, M extends HttpMethod> = Extract<(typeof CATALOGUE)[number], { service: S; method: M }>['path'];

/** Statuses whose success answer has no body. */
export const NO_BODY_STATUSES = [204, 302, 303] as const;

/**
 * Whether an operation says what it answers: a JSON schema, a media type (file, page), or a
 * status without a body. Every operation must (test: services/gateway/test/openapi.test.ts).
 */
export function declaresAnswer(op: Operation): boolean {
  return Boolean(op.response) || Boolean(op.produces?.length) || op.noBody === true || (NO_BODY_STATUSES as readonly number[]).includes(op.status ?? 200);
}

/** Express's path for a catalogue template: `/api/jobs/{id}/claim` -> `/api/jobs/:id/claim`. */
export function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** A path template as a regex: `{x}` matches one path segment. */
export function templateToRegex(path: string): RegExp {
  const src = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+');
  return new RegExp(`^${src}/?$`);
}
