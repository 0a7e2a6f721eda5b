/**
 * Config fails at boot in one list (issue #18 item 5): EVENT_BUS=kafka without KAFKA_BROKERS is
 * reported together with every other bad key, and a good environment still boots.
 */
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { baseConfigSchema, ConfigError, eventBusConfigSchema, loadConfig } from '../src/config.js';

/** Built as every service builds its schema: the shared keys, its own, and the EVENT_BUS union. */
const serviceSchema = baseConfigSchema
  .extend({ PORT: z.coerce.number().int().min(0).default(8080) })
  .and(eventBusConfigSchema);

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig('jobs', serviceSchema, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('loadConfig', () => {
  it('refuses EVENT_BUS=kafka without KAFKA_BROKERS, naming the key', () => {
    expect(problemsOf({ EVENT_BUS: 'kafka' })).toEqual([
      'KAFKA_BROKERS: must be set when EVENT_BUS=kafka (comma-separated host:port list)',
    ]);
    expect(problemsOf({ EVENT_BUS: 'kafka', KAFKA_BROKERS: ' ' })).toEqual([
      expect.stringMatching(/^KAFKA_BROKERS: /),
    ]);
  });

  it('lists the missing brokers in the same error as the other bad keys', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig('jobs', serviceSchema, { EVENT_BUS: 'kafka', LOG_LEVEL: 'loud', PORT: 'eighty' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'KAFKA_BROKERS',
      'LOG_LEVEL',
      'PORT',
    ]);
    expect(error!.message).toMatch(/^jobs: invalid configuration: .*LOG_LEVEL.*KAFKA_BROKERS/);
  });

  it('boots with kafka and its brokers, and with redis and no brokers', () => {
    const kafka = loadConfig('jobs', serviceSchema, {
      EVENT_BUS: 'kafka',
      KAFKA_BROKERS: '127.0.0.1:9092',
    });
    expect(kafka).toMatchObject({
      EVENT_BUS: 'kafka',
      KAFKA_BROKERS: '127.0.0.1:9092',
      PORT: 8080,
    });
    expect(loadConfig('jobs', serviceSchema, {})).toMatchObject({ EVENT_BUS: 'redis' });
  });

  it('reports an unknown EVENT_BUS as a bad key of the same list', () => {
    expect(
      problemsOf({ EVENT_BUS: 'rabbit', PORT: '-1' })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['EVENT_BUS', 'PORT']);
  });

  it('types a kafka config as carrying its brokers (the union narrows on EVENT_BUS)', () => {
    const cfg = loadConfig('jobs', serviceSchema, {
      EVENT_BUS: 'kafka',
      KAFKA_BROKERS: 'a:9092,b:9092',
      KAFKA_MAX_WAIT_MS: '250',
    });
    if (cfg.EVENT_BUS !== 'kafka') throw new Error('expected the kafka branch');
    const brokers: string = cfg.KAFKA_BROKERS; // a compile error if the union did not narrow
    expect(brokers.split(',')).toEqual(['a:9092', 'b:9092']);
    expect(cfg.KAFKA_MAX_WAIT_MS).toBe(250);
  });
});
