/**
 * The EventBus contract: every transport runs these scenarios (Redis Streams here, Kafka where
 * a broker is available). `makeBus` returns a fresh bus with its own key/topic prefix.
 */
import { describe, expect, it, afterAll } from '@jest/globals';
import { waitFor } from '@htm/service-kit/testing';
import { createEvent, type EventBus, type EventEnvelope } from '../src/index.js';

export { waitFor };

const lead = (n: number, subject = 'lead-1') =>
  createEvent('LeadReceived', subject, { leadId: `${subject}-${n}`, email: `l${n}@gmail.com` });

/** Writes a raw message onto a source's stream/topic, as someone holding bus access could (a forger). */
export type WriteRaw = (
  bus: EventBus,
  source: string,
  subject: string,
  value: string,
) => Promise<void>;

export function runBusContract(
  name: string,
  makeBus: () => Promise<EventBus>,
  writeRaw: WriteRaw,
): void {
  describe(`EventBus contract: ${name}`, () => {
    const buses: EventBus[] = [];
    const bus = async () => {
      const b = await makeBus();
      buses.push(b);
      return b;
    };
    afterAll(async () => {
      await Promise.all(buses.map((b) => b.close()));
    });

    it('delivers a published event once to each consumer group', async () => {
      const b = await bus();
      const seenA: string[] = [];
      const seenB: string[] = [];
      await b.subscribe({
        group: 'a',
        sources: ['admin'],
        handler: async (e) => void seenA.push(e.id),
      });
      await b.subscribe({
        group: 'b',
        sources: ['admin'],
        handler: async (e) => void seenB.push(e.id),
      });
      const e = lead(1);
      await b.publish([e]);
      await waitFor(() => seenA.length === 1 && seenB.length === 1, 'both groups');
      await new Promise((r) => setTimeout(r, 300));
      expect(seenA).toEqual([e.id]);
      expect(seenB).toEqual([e.id]);
    });

    it('keeps the order of events with the same subject', async () => {
      const b = await bus();
      const seen: Record<string, number[]> = {};
      await b.subscribe({
        group: 'order',
        sources: ['admin'],
        handler: async (e: EventEnvelope) => {
          const n = Number((e.data as { leadId: string }).leadId.split('-').pop());
          (seen[e.subject] ??= []).push(n);
        },
      });
      const events: EventEnvelope[] = [];
      for (let i = 0; i < 30; i++) for (const s of ['s1', 's2', 's3']) events.push(lead(i, s));
      for (let i = 0; i < events.length; i += 7) await b.publish(events.slice(i, i + 7));
      await waitFor(() => ['s1', 's2', 's3'].every((s) => seen[s]?.length === 30), 'all 90 events');
      for (const s of ['s1', 's2', 's3'])
        expect(seen[s]).toEqual(Array.from({ length: 30 }, (_, i) => i));
    });

    it('moves an event whose handler keeps failing to dead letter after N attempts, and replays it', async () => {
      const b = await bus();
      let attempts = 0;
      const sub = await b.subscribe({
        group: 'dlq',
        sources: ['admin'],
        maxAttempts: 3,
        handler: async () => {
          attempts++;
          throw new Error('boom');
        },
      });
      const e = lead(7, 'poison');
      await b.publish([e]);
      const letters = await waitFor(async () => {
        const l = await b.deadLetters('dlq');
        return l.length ? l : undefined;
      }, 'a dead letter');
      expect(attempts).toBe(3);
      expect(letters[0]).toMatchObject({ group: 'dlq', error: 'boom', attempts: 3 });
      expect((letters[0].event as EventEnvelope).id).toBe(e.id);
      await sub.stop();

      const replayed: string[] = [];
      await b.subscribe({
        group: 'dlq',
        sources: ['admin'],
        handler: async (ev) => void replayed.push(ev.id),
      });
      expect(await b.replayDeadLetters('dlq')).toBe(1);
      await waitFor(() => replayed.includes(e.id), 'the replayed event');
      expect(await b.deadLetters('dlq')).toEqual([]);
    });

    it('retries a failing handler and succeeds without dead-lettering', async () => {
      const b = await bus();
      let calls = 0;
      const ok: string[] = [];
      await b.subscribe({
        group: 'flaky',
        sources: ['admin'],
        maxAttempts: 5,
        handler: async (e) => {
          if (++calls < 3) throw new Error('transient');
          ok.push(e.id);
        },
      });
      const e = lead(9, 'flaky');
      await b.publish([e]);
      await waitFor(() => ok.length === 1, 'success after retries');
      expect(calls).toBe(3);
      expect(await b.deadLetters('flaky')).toEqual([]);
    });

    it("dead-letters, unhandled and counted, an event under another service's name or on another service's stream", async () => {
      const b = await bus();
      const handled: string[] = [];
      const rejected: string[] = [];
      await b.subscribe({
        group: 'origin',
        sources: ['payments', 'admin'],
        handler: async (e) => void handled.push(e.id),
        onRejected: (reason) => void rejected.push(reason),
      });
      // A hand-written JobPaid on the payments stream that says it came from admin.
      const paid = createEvent('JobPaid', 'job-1', {
        jobId: 'job-1',
        sessionId: 'cs_forged',
        posterId: 'p',
        amountCents: 100,
        paidAt: new Date().toISOString(),
      });
      await writeRaw(b, 'payments', 'job-1', JSON.stringify({ ...paid, source: 'admin' }));
      // A well-formed admin event written onto the payments stream (only payments may write there).
      const misplaced = lead(1, 'misplaced');
      await writeRaw(b, 'payments', 'misplaced', JSON.stringify(misplaced));
      // Not an envelope at all.
      await writeRaw(b, 'admin', 'junk', '{"hello":');
      const genuine = lead(2, 'genuine');
      await b.publish([genuine]);
      await waitFor(
        () => handled.length === 1 && rejected.length === 3,
        'the genuine event handled, three refused',
      );
      const letters = await waitFor(async () => {
        const l = await b.deadLetters('origin');
        return l.length === 3 ? l : undefined;
      }, 'three dead letters');
      expect(handled).toEqual([genuine.id]);
      expect(rejected.sort()).toEqual(['invalid', 'source_not_owner', 'wrong_stream']);
      const byReason = Object.fromEntries(letters.map((l) => [l.reason, l]));
      expect(byReason.source_not_owner.error).toBe(
        'rejected (source_not_owner): JobPaid is published by payments, not admin',
      );
      expect((byReason.source_not_owner.event as EventEnvelope).id).toBe(paid.id);
      expect(byReason.wrong_stream.error).toBe(
        'rejected (wrong_stream): LeadReceived from admin arrived on payments stream',
      );
      expect(byReason.invalid.error).toMatch(/^rejected \(invalid\): /);
    });

    it('reports the lag of a consumer group: every event before it starts, 0 once all are handled', async () => {
      const b = await bus();
      expect(b.lag).toBeDefined();
      await b.publish([lead(1, 'lag-1'), lead(2, 'lag-2'), lead(3, 'lag-3')]);
      // The group does not exist yet: it will start from the beginning, so all three wait for it.
      await waitFor(
        async () => (await b.lag!('lagging', ['admin'])) === 3,
        'a lag of 3 before the group starts',
      );
      expect(await b.lag!('lagging', ['jobs'])).toBe(0);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const seen: string[] = [];
      await b.subscribe({
        group: 'lagging',
        sources: ['admin'],
        handler: async (e) => {
          await gate;
          seen.push(e.id);
        },
      });
      expect(await b.lag!('lagging', ['admin'])).toBeGreaterThan(0);
      release();
      await waitFor(() => seen.length === 3, 'the three events handled');
      await waitFor(async () => (await b.lag!('lagging', ['admin'])) === 0, 'the lag back to 0');
    });

    it("hands the consumer the event's trace context (traceparent) unchanged", async () => {
      const b = await bus();
      const seen: EventEnvelope[] = [];
      await b.subscribe({
        group: 'trace',
        sources: ['admin'],
        handler: async (e) => void seen.push(e),
      });
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const traced = createEvent(
        'LeadReceived',
        'traced',
        { leadId: 'traced-1', email: 't1@gmail.com' },
        { traceparent },
      );
      const plain = lead(1, 'traced');
      await b.publish([traced, plain]);
      await waitFor(() => seen.length === 2, 'both events');
      expect(seen[0]).toEqual(traced);
      expect(seen[1]).toEqual(plain);
      expect(seen[1]).not.toHaveProperty('traceparent');
    });
  });
}
