/** Pure rules about users (no I/O): strike release, an open role choice, a tester's location. */
import type { UserCountry, UserLocation } from '@htm/contracts';
import type { UserRow } from '../db/user.repository.js';

/**
 * Unapproved by the strike rule: a tester with the limit of strikes (missed claim or revision
 * deadlines) whom no admin has re-approved since.
 */
export function releasedForStrikes(
  u: Pick<UserRow, 'type' | 'approved' | 'strikes'>,
  strikeLimit: number,
): boolean {
  return u.type === 'tester' && !u.approved && u.strikes >= strikeLimit;
}

/**
 * Who gets in through the tester entrance (intent=tester): the admin, an approved tester, and a
 * tester released by the strike rule. The released tester lands on the dashboard's paused state,
 * which shows each strike with its reason and the appeal form (#34: every strike can be appealed
 * once within 14 days, so they must be able to reach it); jobs and payments still refuse them
 * everything an approved tester may do (claim, submit, cash out). A tester never approved, or
 * un-approved by the admin below the strike limit, is still refused (`tester_not_approved`).
 */
export function mayUseTesterEntrance(
  u: Pick<UserRow, 'type' | 'approved' | 'strikes'>,
  strikeLimit: number,
): boolean {
  return (
    u.type === 'admin' || (u.type === 'tester' && u.approved) || releasedForStrikes(u, strikeLimit)
  );
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
export function testerLocation(
  country: UserCountry | null | undefined,
  current: UserLocation | null,
): UserLocation | null {
  if (country === 'US') return 'USA';
  if (country === 'PR') return 'PR';
  return current;
}
