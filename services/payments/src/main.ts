import { recordPlatformFundedEarning } from './events/session-decided.handler.js';
import { fileURLToPath } from 'node:url';
import { refundClearedJobs, refundWithdrawnJobs } from './events/jobs-cleared.handler.js';
import { refundUnfilledSlot } from './events/pack-slot-closed.handler.js';
import { eraseUserInPayments } from './domain/privacy.js';
import { hostService, type HostedService } from '@htm/events';
import { runMain } from '@htm/service-kit';
import { loadPaymentsConfig, type PaymentsConfig } from './config.js';
import { mountPayments } from './app.js';
import type { PaymentsDeps } from './deps.js';
import { handledEvents, outbox } from './db/schema.js';
import { ProviderLookupCache } from './domain/provider-cache.js';
import { createProvider } from './providers/create-provider.js';
import { LocalProvider } from './providers/local.provider.js';
import { reconcileLocalCheckouts } from './domain/local-checkout.js';
import { recordEarning } from './events/submission-accepted.handler.js';
import { resumeCashOuts } from './domain/cash-out.js';

export const migrationsFolder = fileURLToPath(new URL('./db/migrations', import.meta.url));

export type PaymentsService = HostedService<PaymentsConfig> & { deps: PaymentsDeps };

/** Starts the payments service (PORT 0 = any free port). Used by main, `npm start` and tests. */
export async function startPayments(
  env: Record<string, string | undefined> = process.env,
  opts: { port?: number } = {},
): Promise<PaymentsService> {
  const config = loadPaymentsConfig(env);
  let deps!: PaymentsDeps;
  const svc = await hostService({
    name: 'payments',
    config,
    migrationsFolder,
    tables: { outbox, handled: handledEvents },
    port: opts.port,
    setup: (ctx) => {
      // ctx.events is created after setup returns: keep the getter alive.
      const lookups = new ProviderLookupCache(
        config.PAYMENTS_PROVIDER === 'stripe' ? config.PROVIDER_CACHE_MS : 0,
      );
      deps = Object.create(ctx, {
        provider: { value: createProvider(config, ctx.db), enumerable: true },
        lookups: { value: lookups, enumerable: true },
      }) as PaymentsDeps;
      return {
        app: (createHttp) => createHttp((app) => mountPayments(app, deps)),
        // Local provider: settle the checkouts whose webhook a crash prevented.
        start: async () => {
          if (deps.provider instanceof LocalProvider)
            await reconcileLocalCheckouts(deps).catch((err: Error) =>
              ctx.logger.error({ err: err.message }, 'could not reconcile local checkouts'),
            );
          // Cash-outs a crash left between the transfer and the ledger write: the same key, paid once.
          await resumeCashOuts(deps).catch((err: Error) =>
            ctx.logger.error({ err: err.message }, 'could not resume cash-outs'),
          );
        },
        handlers: {
          SubmissionAccepted: (event, tx) => recordEarning(tx, event, deps.events),
          // A failed session released once its job had gone to another tester: the platform pays it.
          SessionDecided: (event, tx) => recordPlatformFundedEarning(tx, event),
          // JobsCleared: the paid jobs nobody finished are refunded; the rest of the money history
          // (payments, earnings, payouts) outlives the jobs it was for; see README.
          JobsCleared: (event, tx) => refundClearedJobs(deps, tx, event),
          // PackSlotClosed: a pack's slot nobody claimed in its fill window is refunded (one unit).
          PackSlotClosed: (event, tx) => refundUnfilledSlot(deps, tx, event),
          // A deleted poster's paid jobs nobody started; and the deleted person leaves the ledger (the entries stay).
          JobsWithdrawn: (event, tx) => refundWithdrawnJobs(deps, tx, event),
          UserDeleted: (event, tx) => eraseUserInPayments(deps, event, tx),
        },
      };
    },
  });
  return Object.assign(svc, { deps });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runMain('payments', () => startPayments());
}
