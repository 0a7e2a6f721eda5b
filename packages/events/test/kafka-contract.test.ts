/**
 * The EventBus contract (bus-contract.ts, the same scenarios as Redis Streams) against Kafka:
 * a broker named by KAFKA_BROKERS (docker compose: KAFKA_BROKERS=127.0.0.1:9092), else a
 * single-node KRaft broker started with testcontainers when a container runtime answers, else
 * librdkafka's mock cluster (test/support/kafka-mock.ts: a Kafka-protocol broker on a real TCP
 * port, built once per machine). Under CI=true the suite never skips: a broker that cannot start
 * fails it. Elsewhere it is skipped with the reason printed.
 */
import { afterAll, describe, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaBus, type EventSource } from '../src/index.js';
import { startKafkaMock } from '../../../test/support/kafka-mock.js';
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
  { brokers: string[]; via: string; stop?: () => Promise<void> } | { skip: string }
> {
  if (process.env.KAFKA_BROKERS)
    return {
      brokers: process.env.KAFKA_BROKERS.split(',').map((b) => b.trim()),
      via: 'KAFKA_BROKERS',
    };
  let noContainers: string;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    try {
      return { ...(await startKafkaContainer()), via: KAFKA_IMAGE };
    } catch (err) {
      noContainers = `the Kafka container (${KAFKA_IMAGE}) did not start: ${(err as Error).message.split('\n')[0]}`;
    }
  } catch (err) {
    noContainers = `no container runtime (${(err as Error).message.split('\n')[0]})`;
  }
  try {
    const mock = await startKafkaMock();
    return {
      brokers: [mock.brokers],
      via: `librdkafka mock cluster (${noContainers})`,
      stop: mock.stop,
    };
  } catch (err) {
    const why = `no KAFKA_BROKERS, ${noContainers}, and the librdkafka mock did not start: ${(err as Error).message}`;
    // CI must run this suite: a broker that cannot start is a failure there, not a skip.
    if (process.env.CI === 'true') throw new Error(`Kafka contract suite cannot run: ${why}`);
    return { skip: why };
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
  process.stderr.write(`kafka contract tests against ${kafka.brokers.join(',')}: ${kafka.via}\n`);
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
        // Short fetch waits and a quick group: the mock answers a fetch only after its full
        // MaxWait, and every subscribe joins a new group (about 25 s for the suite, not 70).
        consumer: { maxWaitTimeInMs: 250, sessionTimeout: 6000, heartbeatInterval: 500 },
      }),
    // A producer of its own, as anyone with write access to the topic could use.
    async (bus, source, subject, value) => {
      const producer = new Kafka({
        brokers: kafka.brokers,
        clientId: 'forger',
        logLevel: logLevel.NOTHING,
      }).producer({ allowAutoTopicCreation: true });
      await producer.connect();
      try {
        await producer.send({
          topic: (bus as KafkaBus).topic(source as EventSource),
          messages: [{ key: subject, value }],
        });
      } finally {
        await producer.disconnect();
      }
    },
  );
}
