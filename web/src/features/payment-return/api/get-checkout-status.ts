import type { CheckoutStatusResponse as CheckoutStatus } from '@htm/contracts/payments';
import { api } from '../../../lib/api';

export type { CheckoutStatus };

const statusApi = api.injectEndpoints({
  endpoints: (build) => ({
    getCheckoutStatus: build.query<CheckoutStatus, string>({
      query: (sessionId) => ({ url: `/payments/checkout/status/${encodeURIComponent(sessionId)}` }),
    }),
  }),
});

export const { useGetCheckoutStatusQuery } = statusApi;
