import { useEffect, useState } from 'react';

/** The time now, renewed every `everyMs` while `ticking` (so deadlines count down on screen). */
export function useNow(everyMs: number, ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return undefined;
    setNow(Date.now());
    const id = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(id);
  }, [everyMs, ticking]);
  return now;
}
