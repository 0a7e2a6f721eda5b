import { api } from '../../../lib/api';

const leadApi = api.injectEndpoints({
  endpoints: (build) => ({
    sendLead: build.mutation<{ success: boolean }, { email: string; message: string }>({
      query: (body) => ({ url: '/leads', method: 'POST', body }),
    }),
  }),
});

export const { useSendLeadMutation } = leadApi;
