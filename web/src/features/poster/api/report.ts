import type {
  ShareLinkView,
  WebhookDeliveryView,
  WebhookEndpointCreatedView,
  WebhookEndpointView,
} from '@htm/contracts/reports';
import { api } from '../../../lib/api';

const reportApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/share: the job's one live link (the same one when asked again). */
    shareJob: build.mutation<ShareLinkView, string>({
      query: (jobId) => ({ url: `/jobs/${jobId}/share`, method: 'POST', body: {} }),
    }),
    /** DELETE /api/jobs/:id/share: the link stops working at once. */
    revokeShare: build.mutation<void, string>({
      query: (jobId) => ({ url: `/jobs/${jobId}/share`, method: 'DELETE' }),
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
  }),
});

export const {
  useShareJobMutation,
  useRevokeShareMutation,
  useListWebhookEndpointsQuery,
  useAddWebhookEndpointMutation,
  useRemoveWebhookEndpointMutation,
  useWebhookDeliveriesQuery,
  useTestWebhookMutation,
  useRedeliverWebhookMutation,
} = reportApi;
