/**
 * The EventBus contract (bus-contract.ts, the same scenarios as Redis Streams) against Kafka:
 * a broker named by KAFKA_BROKERS (CI or docker compose: KAFKA_BROKERS=127.0.0.1:9092), else a
 * single-node KRaft broker started with testcontainers when a container runtime answers, else
 * skipped with the reason printed.
 */
import { afterAll, describe, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { KafkaBus } from '../src/index.js';
import { runBusContract } from './bus-contract.js';

const KAFKA_IMAGE = process.env.KAFKA_TEST_IMAGE ?? 'apache/kafka:3.9.1';

/** A free TCP port on this machine (the broker must advertise the port the host reaches it on). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function startKafkaContainer(): Promise<{ brokers: string[]; stop: () => Promise<void> }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const port = await freePort();
  const host = process.env.TESTCONTAINERS_HOST_OVERRIDE ?? '127.0.0.1';
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withExposedPorts({ container: 9092, host: port })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_NUM_PARTITIONS: '3',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(120_000)
    .start();
  return { brokers: [`${host}:${port}`], stop: async () => void (await container.stop()) };
}

/** Where the Kafka contract runs, or why it cannot. */
async function locateKafka(): Promise<
  { brokers: string[]; stop?: () => Promise<void> } | { skip: string }
> {
  if (process.env.KAFKA_BROKERS)
    return { brokers: process.env.KAFKA_BROKERS.split(',').map((b) => b.trim()) };
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
  } catch (err) {
    return {
      skip: `no KAFKA_BROKERS and no container runtime (${(err as Error).message.split('\n')[0]})`,
    };
  }
  try {
    return await startKafkaContainer();
  } catch (err) {
    return {
      skip: `no KAFKA_BROKERS and the Kafka container (${KAFKA_IMAGE}) did not start: ${(err as Error).message.split('\n')[0]}`,
    };
  }
}

const kafka = await locateKafka();

if ('skip' in kafka) {
  // stderr as well: jest drops the console output of a suite whose tests are all skipped when it
  // runs several suites.
  process.stderr.write(`kafka contract tests skipped: ${kafka.skip}\n`);
  console.log(`kafka contract tests skipped: ${kafka.skip}`);
  describe.skip('EventBus contract: Kafka', () => {
    it(`skipped: ${kafka.skip}`, () => undefined);
  });
} else {
  afterAll(async () => {
    await kafka.stop?.();
  }, 60_000);
  // A fresh topic prefix per bus keeps runs apart on a shared broker.
  runBusContract(
    'Kafka',
    async () =>
      new KafkaBus({
        brokers: kafka.brokers,
        prefix: `test.${randomBytes(4).toString('hex')}.`,
        retryBackoffMs: 5,
        clientId: 'contract-test',
      }),
  );
}
