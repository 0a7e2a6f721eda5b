/** POST /api/me/deletion's answer in tests: the account's deletion, scheduled for 3 December 2026. */
export const scheduledDeletion = {
  deletion: {
    id: 'd1',
    user_id: 'u1',
    status: 'scheduled',
    requested_at: '2026-11-26T05:00:00.000Z',
    due_at: '2026-12-03T05:00:00.000Z',
    cancelled_at: null,
    completed_at: null,
    services_done: [],
    requested_by_admin: false,
  },
};
