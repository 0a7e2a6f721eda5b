import { describe, expect, it } from '@jest/globals';
import { ClaimGate } from './claim-gate.js';

const lost = () => new Error('job_taken');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ClaimGate', () => {
  it('runs one attempt for a storm on one job: the others waited behind the winner and lost', async () => {
    const gate = new ClaimGate();
    let attempts = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => gate.run('job-1', async () => {
        attempts++;
        await sleep(10);
        return 'won';
      }, lost)),
    );
    expect(attempts).toBe(1);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected' && (r.reason as Error).message === 'job_taken')).toHaveLength(19);
    await sleep(0);
    expect(gate.busyJobs).toBe(0);
  });

  it('lets the next claim try when the one before it failed for its own reasons', async () => {
    const gate = new ClaimGate();
    const tried: string[] = [];
    const claim = (who: string, ok: boolean) => gate.run('job-2', async () => {
      tried.push(who);
      await sleep(5);
      if (!ok) throw new Error(`${who} holds a job already`);
      return who;
    }, lost);
    const results = await Promise.allSettled([claim('a', false), claim('b', true), claim('c', true)]);
    expect(tried).toEqual(['a', 'b']);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a holds a job already', 'b', 'job_taken']);
  });

  it('keeps nothing once the queue has drained: a later claim reaches the database again', async () => {
    const gate = new ClaimGate();
    await gate.run('job-3', async () => 'first', lost);
    await sleep(0);
    let ran = false;
    await expect(gate.run('job-3', async () => {
      ran = true;
      throw new Error('not open');
    }, lost)).rejects.toThrow('not open');
    expect(ran).toBe(true);
  });

  it('never makes claims of different jobs wait for each other', async () => {
    const gate = new ClaimGate();
    const order: string[] = [];
    const slow = gate.run('job-a', async () => {
      await sleep(50);
      order.push('a');
    }, lost);
    const fast = gate.run('job-b', async () => {
      order.push('b');
    }, lost);
    await Promise.all([slow, fast]);
    expect(order).toEqual(['b', 'a']);
  });
});
