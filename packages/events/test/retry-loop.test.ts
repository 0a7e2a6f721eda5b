/**
 * The one retry -> dead-letter loop both transports run (retry.ts `runWithRetry`), without a
 * broker: the transport's dead letter and wait are plain callbacks here.
 */
import { describe, expect, it } from '@jest/globals';
import {
  classifyError,
  createEvent,
  PermanentEventError,
  runWithRetry,
  type EventEnvelope,
  type RetryLoop,
} from '../src/index.js';

const event = createEvent('LeadReceived', 'lead-1', { leadId: 'lead-1', email: 'lead1@gmail.com' });

/** A loop whose waits take no time and are recorded, and whose dead letters are recorded. */
function recordingLoop(extra: Partial<RetryLoop> = {}) {
  const deadLetters: Array<{ error: string; attempts: number }> = [];
  const waits: number[] = [];
  const loop: RetryLoop = {
    policy: { maxAttempts: 3, baseDelayMs: 10 },
    deadLetter: async (err, attempts) => {
      deadLetters.push({ error: err.message, attempts });
    },
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  };
  return { loop, deadLetters, waits };
}

/** A handler that throws the given errors in turn, then succeeds; it counts its calls. */
function failing(...errors: Error[]) {
  const calls: EventEnvelope[] = [];
  const handler = async (e: EventEnvelope) => {
    calls.push(e);
    const err = errors[calls.length - 1];
    if (err) throw err;
  };
  return { handler, calls };
}

const transient = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('runWithRetry (the retry loop every transport shares)', () => {
  it('dead-letters a permanent error after one attempt, without waiting', async () => {
    const { loop, deadLetters, waits } = recordingLoop();
    const { handler, calls } = failing(new PermanentEventError('bad payload'));

    const outcome = await runWithRetry(handler, event, loop);

    expect(outcome).toBe('dead-lettered');
    expect(calls).toHaveLength(1);
    expect(deadLetters).toEqual([{ error: 'bad payload', attempts: 1 }]);
    expect(waits).toEqual([]);
  });

  it('retries transient errors with a doubling wait until the handler succeeds, with no dead letter', async () => {
    const { loop, deadLetters, waits } = recordingLoop();
    // More transient failures than maxAttempts: transient errors have a time budget, not a count.
    const { handler, calls } = failing(transient(), transient(), transient(), transient());

    const outcome = await runWithRetry(handler, event, loop);

    expect(outcome).toBe('handled');
    expect(calls).toHaveLength(5);
    expect(calls.every((e) => e === event)).toBe(true);
    expect(waits).toEqual([10, 20, 40, 80]);
    expect(deadLetters).toEqual([]);
  });

  it('gives any other error maxAttempts attempts, then dead-letters it with that count', async () => {
    const { loop, deadLetters, waits } = recordingLoop();
    const bug = () => new Error('unexpected constraint');
    const { handler, calls } = failing(bug(), bug(), bug(), bug(), bug());

    const outcome = await runWithRetry(handler, event, loop);

    expect(outcome).toBe('dead-lettered');
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([10, 20]);
    expect(deadLetters).toEqual([{ error: 'unexpected constraint', attempts: 3 }]);
  });

  it('counts earlier deliveries of a redelivered event towards maxAttempts', async () => {
    const { loop, deadLetters } = recordingLoop({ firstAttempt: 3 });
    const { handler, calls } = failing(new Error('still broken'));

    expect(await runWithRetry(handler, event, loop)).toBe('dead-lettered');
    expect(calls).toHaveLength(1);
    expect(deadLetters).toEqual([{ error: 'still broken', attempts: 3 }]);
  });

  it('dead-letters transient errors once their time budget is spent', async () => {
    let clock = 0;
    const { loop, deadLetters, waits } = recordingLoop({
      policy: { baseDelayMs: 100, maxDelayMs: 100, transientBudgetMs: 250 },
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    const { handler, calls } = failing(...Array.from({ length: 10 }, transient));

    expect(await runWithRetry(handler, event, loop)).toBe('dead-lettered');
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([100, 100]);
    expect(deadLetters).toEqual([{ error: 'connect ECONNREFUSED 127.0.0.1:5432', attempts: 3 }]);
  });

  it('stops without a dead letter when the transport says so before or after a wait (the event stays unacknowledged)', async () => {
    const before = recordingLoop({ onRetry: () => false });
    const a = failing(new Error('boom'));
    expect(await runWithRetry(a.handler, event, before.loop)).toBe('stopped');
    expect(a.calls).toHaveLength(1);
    expect(before.waits).toEqual([]);
    expect(before.deadLetters).toEqual([]);

    const after = recordingLoop({ sleep: async () => false });
    const b = failing(new Error('boom'));
    expect(await runWithRetry(b.handler, event, after.loop)).toBe('stopped');
    expect(b.calls).toHaveLength(1);
    expect(after.deadLetters).toEqual([]);
  });

  it('passes on an error the transport throws from onRetry (Kafka leaves the message uncommitted)', async () => {
    const { loop, deadLetters } = recordingLoop({
      onRetry: (err) => {
        throw err;
      },
    });
    const { handler } = failing(new Error('boom'));

    await expect(runWithRetry(handler, event, loop)).rejects.toThrow('boom');
    expect(deadLetters).toEqual([]);
  });

  it('retries a disk-full error (53100) far past the old five-minute budget and then handles the event', async () => {
    let clock = 0;
    const { loop, deadLetters, waits } = recordingLoop({
      policy: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 30_000 },
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    const diskFull = () =>
      Object.assign(new Error('could not extend file "base/16384/2619": No space left on device'), {
        code: '53100',
      });
    const { handler, calls } = failing(...Array.from({ length: 400 }, diskFull));

    expect(await runWithRetry(handler, event, loop)).toBe('handled');
    expect(calls).toHaveLength(401);
    expect(deadLetters).toEqual([]);
    expect(clock).toBeGreaterThan(3 * 3600_000); // hours of a full disk
    expect(Math.max(...waits)).toBe(30_000); // capped backoff
  });
});

describe('classifyError (one place decides retry or dead letter)', () => {
  const pgErr = (code: string, message = 'db error') => Object.assign(new Error(message), { code });
  const wrapped = (cause: Error) =>
    new Error('Failed query: insert into "jobs"."handled_events"', { cause });
  it.each([
    ['53100 disk full', pgErr('53100', 'could not extend file: No space left on device')],
    ['53200 out of memory', pgErr('53200')],
    ['53300 too many connections', pgErr('53300')],
    ['57P01 admin shutdown', pgErr('57P01')],
    ['57P02 crash shutdown', pgErr('57P02')],
    ['57P03 cannot connect now', pgErr('57P03')],
    ['08006 connection failure', pgErr('08006')],
    ['08001 cannot connect', pgErr('08001')],
    ['40001 serialization', pgErr('40001')],
    ['40P01 deadlock', pgErr('40P01')],
    ['57014 statement timeout', pgErr('57014')],
    ['53100 wrapped by drizzle', wrapped(pgErr('53100'))],
    ['ECONNREFUSED', pgErr('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['ECONNRESET', pgErr('ECONNRESET', 'read ECONNRESET')],
    ['ETIMEDOUT', pgErr('ETIMEDOUT')],
    ['ENOSPC', pgErr('ENOSPC', 'ENOSPC: no space left on device, write')],
    ['pg pool timeout', new Error('timeout exceeded when trying to connect')],
    ['ioredis closed', new Error('Connection is closed.')],
    [
      'ioredis gave up',
      Object.assign(
        new Error(
          'Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.',
        ),
        { name: 'MaxRetriesPerRequestError' },
      ),
    ],
    ['Redis OOM', new Error("OOM command not allowed when used memory > 'maxmemory'.")],
    [
      'Redis MISCONF (cannot persist: disk full)',
      new Error(
        'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      ),
    ],
    ['Redis LOADING', new Error('LOADING Redis is loading the dataset in memory')],
  ])('retries %s', (_, err) => {
    expect(classifyError(err)).toBe('transient');
  });

  it.each([
    ['PermanentEventError', new PermanentEventError('bad payload')],
    [
      'a zod validation error',
      Object.assign(new Error('[{"code":"invalid_type"}]'), { name: 'ZodError' }),
    ],
    ['a JSON syntax error', new SyntaxError('Unexpected token } in JSON')],
  ])('dead-letters %s at once', (_, err) => {
    expect(classifyError(err)).toBe('permanent');
  });

  it.each([
    ['23505 unique violation', pgErr('23505', 'duplicate key value')],
    ['a TypeError (a bug)', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ])('gives %s a limited number of attempts', (_, err) => {
    expect(classifyError(err)).toBe('unknown');
  });
});
