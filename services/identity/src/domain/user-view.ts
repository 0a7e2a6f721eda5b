import type { TesterDto, UserDto } from '@htm/contracts';
import type { UserRow } from '../db/schema.js';

/** The user object of the API (only these fields ever leave the service). */
export function toUserDto(u: UserRow): UserDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    type: u.type ?? null,
    location: u.location ?? null,
    country: u.country ?? null,
    approved: u.approved,
    created_at: u.createdAt.toISOString(),
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
  };
}

/** A role choice is still open: no type yet, or a pre-approved tester who has not chosen a location. */
export function needsRoleChoice(u: Pick<UserRow, 'type' | 'location'>): boolean {
  return u.type === null || (u.type === 'tester' && u.location === null);
}
