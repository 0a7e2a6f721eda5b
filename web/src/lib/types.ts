import type { AssistiveTech } from '@htm/contracts/identity';
import type { RatingView } from '@htm/contracts/jobs';
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
  /** Testers: the assistive technology they use, and their rating (one decimal) over rating_count. */
  assistive_tech?: AssistiveTech[];
  rating_avg?: number | null;
  rating_count?: number;
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
  fresh_eyes?: boolean;
  assistive_tech?: AssistiveTech | null;
  /** The poster's rating of the tester (poster and admin lists), null until rated. */
  rating?: RatingView | null;
  /** A re-test: the completed job it checks again. */
  retest_of?: string | null;
  /** A paid re-test is held for the original tester until then. */
  reserved_until?: string | null;
}
