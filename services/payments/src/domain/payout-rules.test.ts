import { describe, expect, it } from '@jest/globals';
import {
  earningStatus,
  KEY_LIFETIME_MS,
  mustLookForTransfer,
  nextPayoutKey,
  payoutKey,
} from './payout-rules.js';

describe('payout rules', () => {
  it('one idempotency key per earning', () => {
    expect(payoutKey('e1')).toBe('payout-e1');
    expect(payoutKey('e1')).toBe(payoutKey('e1'));
    expect(payoutKey('e2')).not.toBe(payoutKey('e1'));
  });

  it('a refused transfer retries with a fresh key; an unknown outcome reuses its key', () => {
    const attempt = { tries: 2, idempotencyKey: 'payout-e1' };
    expect(nextPayoutKey('e1', attempt, true)).toBe('payout-e1-r2');
    expect(nextPayoutKey('e1', { tries: 3, idempotencyKey: 'payout-e1-r2' }, true)).toBe(
      'payout-e1-r3',
    );
    expect(nextPayoutKey('e1', attempt, false)).toBe('payout-e1');
    expect(nextPayoutKey('e1', { tries: 3, idempotencyKey: 'payout-e1-r2' }, false)).toBe(
      'payout-e1-r2',
    );
  });

  it('looks for an existing transfer only on a retry whose key is older than 20 hours', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    const old = new Date(now - KEY_LIFETIME_MS - 1);
    const young = new Date(now - KEY_LIFETIME_MS);
    expect(KEY_LIFETIME_MS).toBe(20 * 3600_000);
    expect(mustLookForTransfer({ tries: 2, keyCreatedAt: old }, now)).toBe(true);
    expect(mustLookForTransfer({ tries: 2, keyCreatedAt: young }, now)).toBe(false);
    // A first attempt has made no transfer yet, however old its key.
    expect(mustLookForTransfer({ tries: 1, keyCreatedAt: old }, now)).toBe(false);
  });

  it('an earning is paid once it has a payout, else shows how it was accepted', () => {
    expect(earningStatus({ payout_id: 'p1', accepted_by: 'auto' })).toBe('paid');
    expect(earningStatus({ payout_id: null, accepted_by: 'auto' })).toBe('auto_accepted');
    expect(earningStatus({ payout_id: null, accepted_by: 'poster' })).toBe('accepted');
    expect(earningStatus({ payout_id: null, accepted_by: null })).toBe('accepted');
  });
});
