import type { LeadsPage } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

const leadsApi = api.injectEndpoints({
  endpoints: (build) => ({
    listLeads: build.query<LeadsPage, { q?: string; page: number; page_size: number }>({
      query: (params) => ({ url: '/admin/leads', params }),
      providesTags: ['Lead'],
    }),
  }),
});

export const { useListLeadsQuery } = leadsApi;
