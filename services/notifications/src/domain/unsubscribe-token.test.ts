import { describe, expect, it } from '@jest/globals';
import { signUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.js';

const SECRET = 'unsubscribe-test-secret-0123456789abcdef';

describe('unsubscribe tokens', () => {
  it('name the user and the kind they were made for', () => {
    expect(
      verifyUnsubscribeToken(SECRET, signUnsubscribeToken(SECRET, 'user-1', 'tester_paid')),
    ).toEqual({ userId: 'user-1', kind: 'tester_paid' });
  });
  it('are refused when made with another secret, altered, or naming an unknown kind', () => {
    const token = signUnsubscribeToken(SECRET, 'user-1', 'tester_paid');
    expect(verifyUnsubscribeToken(`${SECRET}x`, token)).toBeUndefined();
    const [, sig] = token.split('.');
    expect(
      verifyUnsubscribeToken(
        SECRET,
        `${Buffer.from('user-2|tester_paid').toString('base64url')}.${sig}`,
      ),
    ).toBeUndefined();
    expect(verifyUnsubscribeToken(SECRET, 'garbage')).toBeUndefined();
    expect(verifyUnsubscribeToken(SECRET, `${token}.extra`)).toBeUndefined();
  });
});
