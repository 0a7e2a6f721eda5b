import { describe, expect, it } from '@jest/globals';
import {
  centsToDollars,
  JOB_PRICE_CENTS,
  paidAsAsked,
  PLATFORM_FEE_CENTS,
  TESTER_SHARE_CENTS,
} from './money.js';

describe('money rules', () => {
  it('a job costs $1.00, of which the tester earns $0.82 and the platform keeps $0.18', () => {
    expect(JOB_PRICE_CENTS).toBe(100);
    expect(TESTER_SHARE_CENTS).toBe(82);
    expect(PLATFORM_FEE_CENTS).toBe(18);
    expect(TESTER_SHARE_CENTS + PLATFORM_FEE_CENTS).toBe(JOB_PRICE_CENTS);
    expect(centsToDollars(JOB_PRICE_CENTS)).toBe(1);
    expect(centsToDollars(TESTER_SHARE_CENTS)).toBe(0.82);
    expect(centsToDollars(PLATFORM_FEE_CENTS)).toBe(0.18);
  });

  it('turns integer cents into dollars, whatever numeric shape the database answers', () => {
    expect(centsToDollars(246)).toBe(2.46);
    expect(centsToDollars('246')).toBe(2.46);
    expect(centsToDollars(246n)).toBe(2.46);
    expect(centsToDollars(-82)).toBe(-0.82);
    expect(centsToDollars(0)).toBe(0);
    expect(centsToDollars(null)).toBe(0);
    expect(centsToDollars(undefined)).toBe(0);
  });

  it('refuses amounts that are not whole cents', () => {
    expect(() => centsToDollars(1.5)).toThrow('not an integer amount of cents: 1.5');
    expect(() => centsToDollars('abc')).toThrow('not an integer amount of cents: abc');
    expect(() => centsToDollars(2 ** 60)).toThrow(/not an integer amount of cents/);
  });

  describe('a paid amount is booked only when it is what the session asked for', () => {
    const asked = { amountCents: JOB_PRICE_CENTS, currency: 'usd' };

    it('same cents, same currency (any case)', () => {
      expect(paidAsAsked(asked, { amountTotal: 100, currency: 'usd' })).toBe(true);
      expect(paidAsAsked(asked, { amountTotal: 100, currency: 'USD' })).toBe(true);
      expect(
        paidAsAsked({ amountCents: 100, currency: 'USD' }, { amountTotal: 100, currency: 'usd' }),
      ).toBe(true);
    });

    it('another amount, another currency or a missing one is a mismatch', () => {
      expect(paidAsAsked(asked, { amountTotal: 1, currency: 'usd' })).toBe(false);
      expect(paidAsAsked(asked, { amountTotal: 10000, currency: 'usd' })).toBe(false);
      expect(paidAsAsked(asked, { amountTotal: null, currency: 'usd' })).toBe(false);
      expect(paidAsAsked(asked, { amountTotal: 100, currency: 'eur' })).toBe(false);
      expect(paidAsAsked(asked, { amountTotal: 100, currency: null })).toBe(false);
    });
  });
});
