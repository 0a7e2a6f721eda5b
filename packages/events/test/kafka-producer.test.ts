/**
 * A Kafka broker that refuses the producer must not keep the process alive: the publish fails,
 * close() returns and the process ends by itself (it used to hang, and with it `npm test`).
 * The refusing broker is librdkafka's mock cluster as librdkafka makes it: with no broker 0,
 * kafkajs' idempotent producer cannot get a producer id ("Broker 0 not found").
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startKafkaMock, type KafkaMock } from '../../../test/support/kafka-mock.js';

const fixture = fileURLToPath(new URL('./fixtures/publish-then-close.ts', import.meta.url));

describe('Kafka producer against a broker that refuses it', () => {
  let broker: KafkaMock;
  beforeAll(async () => {
    broker = await startKafkaMock({ asIs: true });
  }, 600_000); // the first run on a machine builds librdkafka (about a minute, longer on a busy machine)
  afterAll(async () => {
    await broker?.stop();
  });

  it('fails the publish, and the process exits once the bus is closed', async () => {
    // A hang shows as this test's timeout; `timeout` kills a hung child so none is left behind.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', fixture, broker.brokers],
      {
        env: { ...process.env, NODE_OPTIONS: '', KAFKAJS_NO_PARTITIONER_WARNING: '1' },
        timeout: 50_000,
      },
    );
    expect(stdout).toMatch(/^publish failed: .+\nclosed\n$/);
  });
});
