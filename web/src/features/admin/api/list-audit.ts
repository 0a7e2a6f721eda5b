import type { AuditAction, AuditEntryDto } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

export interface AuditQuery {
  page: number;
  page_size: number;
  action?: AuditAction;
}

const auditApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/admin/audit: the admin actions, newest first. */
    listAudit: build.query<
      { entries: AuditEntryDto[]; total: number; page: number; page_size: number },
      AuditQuery
    >({
      query: (params) => ({ url: '/admin/audit', params: { ...params } }),
      providesTags: ['Audit'],
    }),
  }),
});

export const { useListAuditQuery } = auditApi;
