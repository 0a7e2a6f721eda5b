import { describe, expect, it } from '@jest/globals';
import { ReelController, reelKeyAction, type ReelState } from './reel';

/** A <video> as the controller drives it: a clock it can set, and the events it listens to. */
class FakeVideo extends EventTarget {
  currentTime = 0;
  paused = true;
  ended = false;
  readyState = 0;
  src = '';
  loads = 0;
  load() {
    this.loads++;
    this.readyState = 0;
  }
  async play() {
    this.paused = false;
    this.dispatchEvent(new Event('play'));
  }
  pause() {
    this.paused = true;
    this.dispatchEvent(new Event('pause'));
  }
  /** The browser loaded the recording: the media fragment put it at its start. */
  loaded(at: number) {
    this.readyState = 1;
    this.currentTime = at;
    this.dispatchEvent(new Event('loadedmetadata'));
  }
  at(t: number) {
    this.currentTime = t;
    this.dispatchEvent(new Event('timeupdate'));
  }
}

const clips = [
  { url: '/r/a', start_ms: 0, end_ms: 11_000, caption: 'one' },
  { url: '/r/a', start_ms: 13_000, end_ms: 28_000, caption: 'two' },
  { url: '/r/b', start_ms: 5_000, end_ms: 20_000, caption: 'three' },
];

describe('the reel controller', () => {
  it('plays each clip to its end, then the next: the same recording by a seek, another by loading it, and stops after the last', async () => {
    const v = new FakeVideo();
    const states: ReelState[] = [];
    const reel = new ReelController(v as unknown as HTMLVideoElement, clips, (s) => states.push(s));
    reel.go(0, true);
    expect(v.src).toBe('/r/a#t=0.0');
    v.loaded(0);
    await Promise.resolve();
    v.at(5);
    expect(reel.state).toEqual({ index: 0, playing: true });
    v.at(11);
    // Same recording: a seek, no new load.
    expect(reel.state.index).toBe(1);
    expect(v.currentTime).toBe(13);
    expect(v.loads).toBe(1);
    v.at(28);
    // Another recording: loaded from the clip's start.
    expect(reel.state.index).toBe(2);
    expect(v.src).toBe('/r/b#t=5.0');
    expect(v.loads).toBe(2);
    v.loaded(0); // a browser that ignored the fragment is sent there
    expect(v.currentTime).toBe(5);
    await Promise.resolve();
    v.at(20);
    expect(reel.state).toEqual({ index: 2, playing: false });
    // Play again after the end: from the last clip's start.
    reel.toggle();
    expect(v.currentTime).toBe(5);
  });

  it('goes back a clip, or to the start of the one playing once well into it', () => {
    const v = new FakeVideo();
    const reel = new ReelController(v as unknown as HTMLVideoElement, clips);
    reel.go(1, false);
    v.loaded(13);
    v.currentTime = 20;
    reel.previous();
    expect([reel.state.index, v.currentTime]).toEqual([1, 13]);
    reel.previous();
    expect([reel.state.index, v.currentTime]).toEqual([0, 0]);
    reel.previous();
    expect(reel.state.index).toBe(0);
  });

  it('maps K, N and P to the reel, never inside a field or with a modifier', () => {
    const key = (k: string, target: Partial<HTMLElement> = { tagName: 'DIV' }, mod = false) =>
      reelKeyAction({
        key: k,
        altKey: false,
        ctrlKey: mod,
        metaKey: false,
        target: target as EventTarget,
      });
    expect([key('k'), key('N'), key('p'), key('x')]).toEqual(['toggle', 'next', 'previous', null]);
    expect(key('k', { tagName: 'INPUT' })).toBeNull();
    expect(key('n', undefined, true)).toBeNull();
  });
});
