import type { DeadLettersView, ReplayDeadLettersResult } from '@htm/contracts';
import { countDeadLetters, replayAllDeadLetters } from '@htm/events';
import type { AdminDeps } from '../deps.js';

/** Events in dead letter across every consumer group: each is an effect that did not happen (needs a hand). */
export async function deadLetterSummary(deps: Pick<AdminDeps, 'bus'>): Promise<DeadLettersView> {
  const groups = await countDeadLetters(deps.bus);
  return { total: groups.reduce((n, g) => n + g.count, 0), groups };
}

/**
 * The Overview's Replay: puts every dead letter back on its stream. Safe to repeat: consumers
 * apply each event id once. An event that still cannot be applied comes back to dead letter.
 */
export async function replayDeadLetters(
  deps: Pick<AdminDeps, 'bus' | 'logger'>,
): Promise<ReplayDeadLettersResult> {
  const groups = await replayAllDeadLetters(deps.bus);
  const replayed = groups.reduce((n, g) => n + g.count, 0);
  deps.logger.info({ replayed, groups }, 'admin replayed dead letters');
  return { replayed, groups };
}
