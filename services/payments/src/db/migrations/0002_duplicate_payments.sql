CREATE TABLE "payments"."local_provider_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"session_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "local_provider_refunds_idempotency_key_unique" UNIQUE("idempotency_key")
);
--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" DROP CONSTRAINT "ledger_kind_job_unique";--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" DROP CONSTRAINT "ledger_kind_check";--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" DROP CONSTRAINT "ledger_sign_check";--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" ADD COLUMN "refund_id" text;--> statement-breakpoint
-- At most one open checkout session per job from now on. Databases written before this rule may
-- hold several open sessions for one job: keep the newest open, mark the older ones expired here.
-- Should one of them still be paid at the provider, its webhook settles it by session id as
-- before (as the job's payment, or as a duplicate that is refunded).
UPDATE "payments"."checkout_sessions" AS s SET "status" = 'expired', "closed_at" = now()
WHERE s."status" = 'open' AND EXISTS (
	SELECT 1 FROM "payments"."checkout_sessions" AS n
	WHERE n."job_id" = s."job_id" AND n."status" = 'open' AND (n."created_at", n."id") > (s."created_at", s."id")
);--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_one_open_per_job" ON "payments"."checkout_sessions" USING btree ("job_id") WHERE status = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_kind_job_unique" ON "payments"."ledger_entries" USING btree ("kind","job_id") WHERE kind IN ('payment', 'tester_earning', 'platform_fee', 'payout');--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_kind_session_unique" ON "payments"."ledger_entries" USING btree ("kind","session_id") WHERE kind IN ('duplicate_payment', 'refund');--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" ADD CONSTRAINT "ledger_session_check" CHECK ("payments"."ledger_entries"."kind" NOT IN ('duplicate_payment', 'refund') OR "payments"."ledger_entries"."session_id" IS NOT NULL);--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" ADD CONSTRAINT "ledger_kind_check" CHECK ("payments"."ledger_entries"."kind" IN ('payment', 'tester_earning', 'platform_fee', 'payout', 'duplicate_payment', 'refund'));--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" ADD CONSTRAINT "ledger_sign_check" CHECK (("payments"."ledger_entries"."kind" = 'payout' AND "payments"."ledger_entries"."amount_cents" < 0 AND "payments"."ledger_entries"."earning_id" IS NOT NULL) OR ("payments"."ledger_entries"."kind" = 'refund' AND "payments"."ledger_entries"."amount_cents" < 0 AND "payments"."ledger_entries"."session_id" IS NOT NULL AND "payments"."ledger_entries"."refund_id" IS NOT NULL) OR ("payments"."ledger_entries"."kind" NOT IN ('payout', 'refund') AND "payments"."ledger_entries"."amount_cents" > 0));