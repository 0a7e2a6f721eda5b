import { ratingAverage, type AssistiveTech, type TesterDto, type UserCountry, type UserDto, type UserLocation } from '@htm/contracts';
import type { UserRow } from '../db/user.repository.js';

/**
 * Unapproved by the strike rule: a tester with the limit of strikes (missed claim or revision
 * deadlines) whom no admin has re-approved since.
 */
export function releasedForStrikes(u: Pick<UserRow, 'type' | 'approved' | 'strikes'>, strikeLimit: number): boolean {
  return u.type === 'tester' && !u.approved && u.strikes >= strikeLimit;
}

/** The user object of the API (only these fields ever leave the service). */
export function toUserDto(u: UserRow, strikeLimit: number): UserDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    type: u.type ?? null,
    location: u.location ?? null,
    country: u.country ?? null,
    approved: u.approved,
    released: releasedForStrikes(u, strikeLimit),
    created_at: u.createdAt.toISOString(),
    ...(u.type === 'tester' ? testerStanding(u) : {}),
  };
}

/** A tester's assistive technology and rating (GET /api/me for testers, the admin's testers list). */
function testerStanding(u: UserRow): Pick<TesterDto, 'assistive_tech' | 'rating_avg' | 'rating_count'> {
  return { assistive_tech: u.assistiveTech as AssistiveTech[], rating_avg: ratingAverage(u.ratingSum, u.ratingCount), rating_count: u.ratingCount };
}

export function toTesterDto(u: UserRow): TesterDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    approved: u.approved,
    country: u.country ?? null,
    location: u.location ?? null,
    strikes: u.strikes,
    created_at: u.createdAt.toISOString(),
    ...testerStanding(u),
  };
}

/** A role choice is still open: no type yet, or a pre-approved tester who has not chosen a location. */
export function needsRoleChoice(u: Pick<UserRow, 'type' | 'location'>): boolean {
  return u.type === null || (u.type === 'tester' && u.location === null);
}

/**
 * A tester's location follows their country wherever the country is set (role choice, profile,
 * repair migration 0001): US is USA, PR is PR. Canada is neither location, so a Canadian tester
 * keeps the location they chose on the role screen (none when they never saw it).
 */
export function testerLocation(country: UserCountry | null | undefined, current: UserLocation | null): UserLocation | null {
  if (country === 'US') return 'USA';
  if (country === 'PR') return 'PR';
  return current;
}
