import type { AssistiveTech } from '@htm/contracts/identity';
/**
 * Shapes of docs/api-contracts.md used across features. Jobs are `JobView` (and its `JobStatus`,
 * `GeoRule`) from `@htm/contracts/jobs`, imported as types only.
 */
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
