/** Shapes of docs/api-contracts.md used across features. */
export type UserType = 'poster' | 'tester' | 'admin';
export interface User {
  id: string;
  email: string;
  name: string;
  type: UserType | null;
  location: 'USA' | 'PR' | null;
  country: 'US' | 'PR' | 'CA' | null;
  approved: boolean;
  /** Unapproved by the strike rule (missed deadlines), not yet re-approved. */
  released?: boolean;
  created_at?: string;
}

export type JobStatus =
  'open' | 'in_progress' | 'claimed' | 'submitted' | 'revision_requested' | 'completed' | 'closed';
export type GeoRule = 'us_pr' | 'us_pr_ca' | 'global_beta';

export interface Job {
  id: string;
  title: string;
  url: string;
  what_to_test: string;
  budget: number;
  expected_completion_hours: number;
  geo_rule: GeoRule;
  requirements: string[];
  status: JobStatus;
  payment_status: 'paid' | 'unpaid' | string;
  poster_id: string;
  tester_id: string | null;
  poster_info?: { email: string; name: string } | null;
  last_review?: {
    decision: string;
    reason: string | null;
    specific_issues?: string[];
    at: string;
  } | null;
  revision_count?: number;
  created_at?: string;
  claimed_at?: string | null;
  submitted_at?: string | null;
  completed_at?: string | null;
  claim_deadline_at?: string | null;
  auto_accept_at?: string | null;
  revision_deadline_at?: string | null;
}
