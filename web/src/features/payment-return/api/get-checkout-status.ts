import { api } from '../../../lib/api';

export interface CheckoutStatus {
  payment_status: 'paid' | 'unpaid' | 'expired' | string;
  job_id: string;
}

const statusApi = api.injectEndpoints({
  endpoints: (build) => ({
    getCheckoutStatus: build.query<CheckoutStatus, string>({
      query: (sessionId) => ({ url: `/payments/checkout/status/${encodeURIComponent(sessionId)}` }),
    }),
  }),
});

export const { useGetCheckoutStatusQuery } = statusApi;
