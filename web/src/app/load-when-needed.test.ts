import '../test/setup';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { loadWhenNeeded, needsAppAtOnce, START_EVENTS } from './load-when-needed';

type Entry = { isIntersecting: boolean };
let observers: { callback: (entries: Entry[]) => void; observed: Element[]; margin?: string }[] =
  [];

class FakeIntersectionObserver {
  observed: Element[] = [];
  constructor(
    readonly callback: (entries: Entry[]) => void,
    options?: { rootMargin?: string },
  ) {
    observers.push({ callback, observed: this.observed, margin: options?.rootMargin });
  }
  observe(el: Element) {
    this.observed.push(el);
  }
  disconnect() {
    this.observed.length = 0;
  }
}

beforeEach(() => {
  jest.useFakeTimers();
  observers = [];
  (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver =
    FakeIntersectionObserver;
});

afterEach(() => {
  jest.useRealTimers();
  delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver;
});

describe('needsAppAtOnce', () => {
  it('is true on a return from sign-in and for a visitor who may be signed in', () => {
    expect(needsAppAtOnce({ hash: '#session_id=abc' }, '')).toBe(true);
    expect(needsAppAtOnce({ hash: '#auth_error=gmail_only&message=x' }, '')).toBe(true);
    expect(needsAppAtOnce({ hash: '' }, 'theme=dark; XSRF-TOKEN=t0k')).toBe(true);
    expect(needsAppAtOnce({ hash: '' }, 'XSRF-TOKEN=t0k')).toBe(true);
    // Over https the cookie carries the __Secure- prefix.
    expect(needsAppAtOnce({ hash: '' }, 'theme=dark; __Secure-XSRF-TOKEN=t0k')).toBe(true);
  });

  it('is false for a signed-out visitor on the plain landing page or a section link', () => {
    expect(needsAppAtOnce({ hash: '' }, '')).toBe(false);
    expect(needsAppAtOnce({ hash: '#job-request' }, 'theme=dark')).toBe(false);
    expect(needsAppAtOnce({ hash: '' }, 'NOT-XSRF-TOKEN=x')).toBe(false);
  });
});

describe('loadWhenNeeded', () => {
  it('waits while the visitor only reads, then starts after the idle time, once', () => {
    const start = jest.fn();
    loadWhenNeeded(start, { idleMs: 4000, near: [] });
    jest.advanceTimersByTime(3999);
    expect(start).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(start).toHaveBeenCalledTimes(1);
    window.dispatchEvent(new Event('pointerdown'));
    jest.advanceTimersByTime(10_000);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it.each(START_EVENTS)('starts on the first %s, and not again', (type) => {
    const start = jest.fn();
    loadWhenNeeded(start, { idleMs: 4000, near: [] });
    // On an element inside the page, not bubbling: the window hears it while capturing.
    document.body.dispatchEvent(new Event(type));
    expect(start).toHaveBeenCalledTimes(1);
    window.dispatchEvent(new Event('keydown'));
    jest.advanceTimersByTime(10_000);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('starts when a form placeholder comes within a screen of the viewport', () => {
    const start = jest.fn();
    const form = document.createElement('div');
    loadWhenNeeded(start, { idleMs: 4000, near: [form] });
    expect(observers).toHaveLength(1);
    expect(observers[0].observed).toEqual([form]);
    expect(observers[0].margin).toBe('100% 0px');
    observers[0].callback([{ isIntersecting: false }]);
    expect(start).not.toHaveBeenCalled();
    observers[0].callback([{ isIntersecting: true }]);
    expect(start).toHaveBeenCalledTimes(1);
    expect(observers[0].observed).toEqual([]); // disconnected
  });

  it('can be cancelled: nothing starts it afterwards', () => {
    const start = jest.fn();
    const cancel = loadWhenNeeded(start, { idleMs: 4000, near: [] });
    cancel();
    window.dispatchEvent(new Event('pointerdown'));
    jest.advanceTimersByTime(10_000);
    expect(start).not.toHaveBeenCalled();
  });
});
