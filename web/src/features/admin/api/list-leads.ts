import { api } from '../../../lib/api';

export interface Lead {
  id: string;
  email: string;
  message: string;
  created_at: string;
}

const leadsApi = api.injectEndpoints({
  endpoints: (build) => ({
    listLeads: build.query<
      { leads: Lead[]; total: number; page: number; page_size: number },
      { q?: string; page: number; page_size: number }
    >({
      query: (params) => ({ url: '/admin/leads', params }),
      providesTags: ['Lead'],
    }),
  }),
});

export const { useListLeadsQuery } = leadsApi;
