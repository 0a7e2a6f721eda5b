/** `npm run start:cluster -- ...`: replica counts from the command line. */
import { describe, expect, it } from '@jest/globals';
import { parseArgs } from '../../scripts/start-cluster.js';

describe('npm run start:cluster arguments', () => {
  it('starts gateway 1, identity 2, jobs 2, payments 2, admin 1, notifications 1, analytics 1, worker 2 by default', () => {
    expect(parseArgs([])).toEqual({ replicas: { gateway: 1, identity: 2, jobs: 2, payments: 2, admin: 1, notifications: 1, analytics: 1, worker: 2 }, port: undefined, build: true });
  });

  it('takes a replica count per role, the gateway port and --no-build', () => {
    expect(parseArgs(['--jobs=3', '--worker=1', '--port=8090', '--no-build'])).toEqual({
      replicas: { gateway: 1, identity: 2, jobs: 3, payments: 2, admin: 1, notifications: 1, analytics: 1, worker: 1 },
      port: 8090,
      build: false,
    });
  });

  it('refuses unknown options and counts outside 0..10, naming what is allowed', () => {
    expect(() => parseArgs(['--kafka=2'])).toThrow('unknown option --kafka; known: --identity=N');
    expect(() => parseArgs(['--jobs=11'])).toThrow('--jobs needs a number of replicas from 0 to 10');
    expect(() => parseArgs(['--jobs=two'])).toThrow('--jobs needs a number');
  });
});
