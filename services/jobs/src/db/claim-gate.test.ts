import { describe, expect, it } from '@jest/globals';
import { ClaimGate } from './claim-gate.js';

const lost = () => new Error('job_taken');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ClaimGate', () => {
  it('runs one attempt for a storm on one job: the others waited behind the winner and lost', async () => {
    const gate = new ClaimGate();
    let attempts = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        gate.run(
          'job-1',
          async () => {
            attempts++;
            await sleep(10);
            return 'won';
          },
          lost,
        ),
      ),
    );
    expect(attempts).toBe(1);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 'rejected' && (r.reason as Error).message === 'job_taken'),
    ).toHaveLength(19);
    await sleep(0);
    expect(gate.busyJobs).toBe(0);
  });

  it('lets the next claim try when the one before it failed for its own reasons', async () => {
    const gate = new ClaimGate();
    const tried: string[] = [];
    const claim = (who: string, ok: boolean) =>
      gate.run(
        'job-2',
        async () => {
          tried.push(who);
          await sleep(5);
          if (!ok) throw new Error(`${who} holds a job already`);
          return who;
        },
        lost,
      );
    const results = await Promise.allSettled([
      claim('a', false),
      claim('b', true),
      claim('c', true),
    ]);
    expect(tried).toEqual(['a', 'b']);
    expect(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    ).toEqual(['a holds a job already', 'b', 'job_taken']);
  });

  it('without status notices keeps nothing once the queue has drained: a later claim reaches the database again', async () => {
    const gate = new ClaimGate();
    await gate.run('job-3', async () => 'first', lost);
    await sleep(0);
    let ran = false;
    await expect(
      gate.run(
        'job-3',
        async () => {
          ran = true;
          throw new Error('not open');
        },
        lost,
      ),
    ).rejects.toThrow('not open');
    expect(ran).toBe(true);
  });

  it('never makes claims of different jobs wait for each other', async () => {
    const gate = new ClaimGate();
    const order: string[] = [];
    const slow = gate.run(
      'job-a',
      async () => {
        await sleep(50);
        order.push('a');
      },
      lost,
    );
    const fast = gate.run(
      'job-b',
      async () => {
        order.push('b');
      },
      lost,
    );
    await Promise.all([slow, fast]);
    expect(order).toEqual(['b', 'a']);
  });

  describe('with job status notices', () => {
    const live = { on: true };
    const gateWithNotices = () => {
      let lostHere = 0;
      const gate = new ClaimGate(() => lostHere++);
      live.on = true;
      gate.followStatusNotices(() => live.on);
      return { gate, lost: () => lostHere };
    };
    const attemptCounting = (counter: { n: number }) => async () => {
      counter.n++;
      return 'won';
    };

    it('answers a later claim of a job it saw won at once, without an attempt', async () => {
      const { gate, lost: lostCount } = gateWithNotices();
      const tries = { n: 0 };
      await gate.run('job-m', attemptCounting(tries), lost);
      await expect(gate.run('job-m', attemptCounting(tries), lost)).rejects.toThrow('job_taken');
      expect(tries.n).toBe(1);
      expect(lostCount()).toBe(1);
    });

    it('learns of claims made elsewhere, and forgets a job on any other status', async () => {
      const { gate } = gateWithNotices();
      const tries = { n: 0 };
      gate.statusNotice('job-x:claimed'); // another replica's claim
      await expect(gate.run('job-x', attemptCounting(tries), lost)).rejects.toThrow('job_taken');
      expect(tries.n).toBe(0);
      for (const status of ['submitted', 'open', 'completed', 'deleted']) {
        gate.statusNotice('job-x:claimed');
        gate.statusNotice(`job-x:${status}`);
        await gate.run('job-x', attemptCounting(tries), lost); // reaches the attempt (the database) again
      }
      expect(tries.n).toBe(4);
    });

    it('forgets everything when notices may have been missed, and remembers nothing while they are down', async () => {
      const { gate } = gateWithNotices();
      const tries = { n: 0 };
      gate.statusNotice('job-1:claimed');
      gate.statusNotice('job-2:claimed');
      gate.statusNotice(undefined); // listener lost or back
      await gate.run('job-1', attemptCounting(tries), lost);
      gate.statusNotice('*'); // TRUNCATE
      await gate.run('job-2', attemptCounting(tries), lost);
      expect(tries.n).toBe(2);
      live.on = false;
      await gate.run('job-3', attemptCounting(tries), lost); // a win while the notices are down
      gate.statusNotice('job-4:claimed');
      await gate.run('job-3', attemptCounting(tries), lost);
      await gate.run('job-4', attemptCounting(tries), lost);
      expect(tries.n).toBe(5);
    });

    it('does not remember a win that raced a notice of a later change', async () => {
      const { gate } = gateWithNotices();
      const tries = { n: 0 };
      await gate.run(
        'job-r',
        async () => {
          tries.n++;
          // While this claim commits, the job is reopened (a timeout in another process).
          gate.statusNotice('job-r:open');
          return 'won';
        },
        lost,
      );
      await gate.run('job-r', attemptCounting(tries), lost);
      expect(tries.n).toBe(2);
    });
  });
});
