/**
 * A Kafka-protocol broker on a real TCP port for tests, with nothing but gcc, make and python3:
 * librdkafka's mock cluster (scripts/kafka-mock). The first call on a machine builds librdkafka
 * once (about a minute; cached under ~/.cache/htm-kafka-mock, `.ci/run` builds it before the
 * tests); later starts take well under a second.
 *
 *   const kafka = await startKafkaMock();   // kafka.brokers === '127.0.0.1:<port>'
 *   ...
 *   await kafka.stop();
 *
 * The broker lives as long as the test process: if the process dies, the launcher sees its stdin
 * close and exits. Known gaps against a real Kafka are listed in docs/operations.md.
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const scripts = fileURLToPath(new URL('../../scripts/kafka-mock/', import.meta.url));

export interface KafkaMock {
  /** Bootstrap list for kafkajs / KAFKA_BROKERS: `127.0.0.1:<port>`. */
  brokers: string;
  stop(): Promise<void>;
}

let built: Promise<string> | undefined;

/** Path of the cached librdkafka.so.1, building it first if this machine has none. */
export function buildKafkaMock(): Promise<string> {
  built ??= promisify(execFile)('bash', [`${scripts}build.sh`], {
    maxBuffer: 1 << 20,
    timeout: 15 * 60_000,
  }).then(({ stdout }) => stdout.trim().split('\n').pop() as string);
  return built;
}

/** Starts a fresh mock cluster (broker 0 on a free 127.0.0.1 port); rejects if it cannot. */
export async function startKafkaMock(
  opts: {
    startTimeoutMs?: number;
    /** The mock exactly as librdkafka makes it (no broker 0): kafkajs' idempotent producer cannot start. */
    asIs?: boolean;
  } = {},
): Promise<KafkaMock> {
  const lib = await buildKafkaMock();
  const args = [`${scripts}launch.py`, lib, ...(opts.asIs ? ['--as-is'] : [])];
  const child = spawn('python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const brokers = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`Kafka mock did not start: ${why}${stderr ? `: ${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail('no port reported in time'), opts.startTimeoutMs ?? 20_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /KAFKA_MOCK_BROKERS=(\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`launcher exited (${signal ?? code})`));
  });
  return {
    brokers,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
