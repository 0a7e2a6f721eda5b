import type {
  GithubTrackerBody,
  JiraTrackerBody,
  TrackerIssueView,
  TrackerKind,
  TrackersView,
  ShareLinkView,
  WebhookDeliveryView,
  WebhookEndpointCreatedView,
  WebhookEndpointView,
} from '@htm/contracts/reports';
import { api } from '../../../lib/api';

/** A report that can be shared and downloaded: one job's, or a pack's one report. */
export interface ReportTarget {
  kind: 'job' | 'pack';
  id: string;
}

/** `/jobs/<id>` or `/packs/<id>` (the share link and the PDF hang below it). */
export const reportPath = (t: ReportTarget) =>
  `/${t.kind === 'job' ? 'jobs' : 'packs'}/${encodeURIComponent(t.id)}`;

const reportApi = api.injectEndpoints({
  endpoints: (build) => ({
    /**
     * POST /api/jobs/:id/share (or /api/packs/:id/share): the job's (the pack's) one live link, the
     * same one when asked again.
     */
    shareReport: build.mutation<ShareLinkView, ReportTarget>({
      query: (t) => ({ url: `${reportPath(t)}/share`, method: 'POST', body: {} }),
    }),
    /** DELETE /api/jobs/:id/share (or /api/packs/:id/share): the link stops working at once. */
    revokeShare: build.mutation<void, ReportTarget>({
      query: (t) => ({ url: `${reportPath(t)}/share`, method: 'DELETE' }),
    }),
    listWebhookEndpoints: build.query<WebhookEndpointView[], void>({
      query: () => ({ url: '/webhook-endpoints' }),
      transformResponse: (r: { endpoints: WebhookEndpointView[] }) => r.endpoints,
      providesTags: ['WebhookEndpoint'],
    }),
    addWebhookEndpoint: build.mutation<WebhookEndpointCreatedView, { url: string }>({
      query: (body) => ({ url: '/webhook-endpoints', method: 'POST', body }),
      invalidatesTags: ['WebhookEndpoint'],
    }),
    removeWebhookEndpoint: build.mutation<void, string>({
      query: (id) => ({ url: `/webhook-endpoints/${id}`, method: 'DELETE' }),
      invalidatesTags: ['WebhookEndpoint'],
    }),
    webhookDeliveries: build.query<WebhookDeliveryView[], string>({
      query: (id) => ({ url: `/webhook-endpoints/${id}/deliveries` }),
      transformResponse: (r: { deliveries: WebhookDeliveryView[] }) => r.deliveries,
      providesTags: (_r, _e, id) => [{ type: 'WebhookEndpoint', id }],
    }),
    testWebhook: build.mutation<{ delivery: WebhookDeliveryView }, string>({
      query: (id) => ({ url: `/webhook-endpoints/${id}/test`, method: 'POST' }),
      invalidatesTags: (_r, _e, id) => [{ type: 'WebhookEndpoint', id }],
    }),
    redeliverWebhook: build.mutation<
      { delivery: WebhookDeliveryView },
      { endpointId: string; deliveryId: string }
    >({
      query: ({ endpointId, deliveryId }) => ({
        url: `/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/redeliver`,
        method: 'POST',
      }),
      invalidatesTags: (_r, _e, a) => [{ type: 'WebhookEndpoint', id: a.endpointId }],
    }),
    getTrackers: build.query<TrackersView, void>({
      query: () => ({ url: '/trackers' }),
      providesTags: ['Tracker'],
    }),
    saveGithubTracker: build.mutation<TrackersView, GithubTrackerBody>({
      query: (body) => ({ url: '/trackers/github', method: 'PUT', body }),
      invalidatesTags: ['Tracker'],
    }),
    saveJiraTracker: build.mutation<TrackersView, JiraTrackerBody>({
      query: (body) => ({ url: '/trackers/jira', method: 'PUT', body }),
      invalidatesTags: ['Tracker'],
    }),
    removeTracker: build.mutation<void, TrackerKind>({
      query: (kind) => ({ url: `/trackers/${kind}`, method: 'DELETE' }),
      invalidatesTags: ['Tracker'],
    }),
    jobIssues: build.query<TrackerIssueView[], string>({
      query: (jobId) => ({ url: `/jobs/${jobId}/issues` }),
      transformResponse: (r: { issues: TrackerIssueView[] }) => r.issues,
      providesTags: (_r, _e, id) => [{ type: 'Tracker', id }],
    }),
    sendFinding: build.mutation<
      TrackerIssueView,
      /** index null: the whole report as one issue. */
      { jobId: string; index: number | null; tracker: TrackerKind }
    >({
      query: ({ jobId, index, tracker }) => ({
        url: index === null ? `/jobs/${jobId}/issue` : `/jobs/${jobId}/findings/${index}/issue`,
        method: 'POST',
        body: { tracker },
      }),
      invalidatesTags: (_r, _e, a) => [{ type: 'Tracker', id: a.jobId }],
    }),
  }),
});

export const {
  useGetTrackersQuery,
  useSaveGithubTrackerMutation,
  useSaveJiraTrackerMutation,
  useRemoveTrackerMutation,
  useJobIssuesQuery,
  useSendFindingMutation,
  useShareReportMutation,
  useRevokeShareMutation,
  useListWebhookEndpointsQuery,
  useAddWebhookEndpointMutation,
  useRemoveWebhookEndpointMutation,
  useWebhookDeliveriesQuery,
  useTestWebhookMutation,
  useRedeliverWebhookMutation,
} = reportApi;
