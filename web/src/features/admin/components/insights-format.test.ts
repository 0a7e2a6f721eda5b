import { describe, expect, it } from '@jest/globals';
import { binLabel, hours, percent, seconds } from './insights-format';
import { rangeOf } from './insights-tab';

describe('insights formatting', () => {
  it('shows durations in minutes, hours or days, and a dash when unknown', () => {
    expect(hours(null)).toBe('—');
    expect(hours(20_000)).toBe('1 min');
    expect(hours(45 * 60_000)).toBe('45 min');
    expect(hours(5.2 * 3600_000)).toBe('5.2 h');
    expect(hours(4 * 86_400_000)).toBe('4.0 days');
  });

  it('shows the short wait for a summary in seconds under a minute', () => {
    expect(seconds(undefined)).toBe('—');
    expect(seconds(300)).toBe('1 s');
    expect(seconds(12_400)).toBe('12 s');
    expect(seconds(90_000)).toBe('2 min');
  });

  it('shows rates as percentages and names histogram bins', () => {
    expect(percent(0.5)).toBe('50%');
    expect(percent(null)).toBe('—');
    expect(binLabel(3600_000)).toBe('≤ 1 h');
    expect(binLabel(null, 48 * 3600_000)).toBe('> 48 h');
  });

  it('asks for the last N UTC days, today included', () => {
    const now = new Date('2026-03-10T23:30:00Z');
    expect(rangeOf(7, now)).toEqual({ from: '2026-03-04', to: '2026-03-10' });
    expect(rangeOf(90, now)).toEqual({ from: '2025-12-11', to: '2026-03-10' });
  });
});
