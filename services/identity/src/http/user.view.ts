import { ratingAverage, type AssistiveTech, type TesterDto, type UserDto } from '@htm/contracts';
import type { UserRow } from '../db/user.repository.js';
import { releasedForStrikes } from '../domain/user-rules.js';

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
function testerStanding(
  u: UserRow,
): Pick<TesterDto, 'assistive_tech' | 'rating_avg' | 'rating_count'> {
  return {
    assistive_tech: u.assistiveTech as AssistiveTech[],
    rating_avg: ratingAverage(u.ratingSum, u.ratingCount),
    rating_count: u.ratingCount,
  };
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
