import { describe, expect, it } from '@jest/globals';
import { authErrorMessage } from './auth-errors';

describe('sign-in refusal messages (#auth_error=CODE)', () => {
  it('tells a tester paused by the strike rule why, not "not approved yet"', () => {
    expect(authErrorMessage('tester_released')).toBe(
      'Your tester account was paused after missed deadlines (jobs not submitted in time). An admin must re-approve it before you can take jobs again.',
    );
    expect(authErrorMessage('tester_not_approved')).toBe(
      'Your tester account is not approved yet. We will e-mail you once an admin approves your signup.',
    );
  });
});
