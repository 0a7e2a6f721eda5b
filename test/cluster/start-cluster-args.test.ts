/** `npm run start:cluster -- ...`: replica counts from the command line. */
import { describe, expect, it } from '@jest/globals';
import { parseArgs } from '../../scripts/start-cluster.js';

describe('npm run start:cluster arguments', () => {
  it('starts two replicas of every service (one of site-check), the gateway and the jobs worker by default', () => {
    expect(parseArgs([])).toEqual({
      replicas: {
        gateway: 2,
        identity: 2,
        jobs: 2,
        payments: 2,
        admin: 2,
        notifications: 2,
        analytics: 2,
        'site-check': 1,
        worker: 2,
      },
      port: undefined,
      build: true,
    });
  });

  it('takes a replica count per role, the gateway port and --no-build', () => {
    expect(parseArgs(['--jobs=3', '--worker=1', '--port=8090', '--no-build'])).toEqual({
      replicas: {
        gateway: 2,
        identity: 2,
        jobs: 3,
        payments: 2,
        admin: 2,
        notifications: 2,
        analytics: 2,
        'site-check': 1,
        worker: 1,
      },
      port: 8090,
      build: false,
    });
  });

  it('refuses unknown options and counts outside 0..10, naming what is allowed', () => {
    expect(() => parseArgs(['--kafka=2'])).toThrow('unknown option --kafka; known: --identity=N');
    expect(() => parseArgs(['--jobs=11'])).toThrow(
      '--jobs needs a number of replicas from 0 to 10',
    );
    expect(() => parseArgs(['--jobs=two'])).toThrow('--jobs needs a number');
  });
});
