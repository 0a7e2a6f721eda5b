import { pino, type Logger, type LoggerOptions } from 'pino';
import { getCorrelationId } from './context.js';

export type { Logger };

/** A pino logger whose every line carries the current correlation id (AsyncLocalStorage). */
export function createLogger(
  service: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  opts: LoggerOptions = {},
): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    mixin() {
      const correlationId = getCorrelationId();
      return correlationId ? { correlationId } : {};
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.token',
        '*.access_token',
      ],
      censor: '[redacted]',
    },
    ...opts,
  });
}
