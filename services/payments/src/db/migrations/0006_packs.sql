-- Packs ("Five testers for $5", issue 33): one checkout session pays several jobs (one unit each),
-- and each job of it can be refunded on its own (an unfilled slot, a cleared job).
ALTER TABLE "payments"."checkout_sessions" ADD COLUMN "job_ids" jsonb;
--> statement-breakpoint
ALTER TABLE "payments"."local_provider_sessions" ADD COLUMN "quantity" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
DROP INDEX IF EXISTS "payments"."ledger_kind_session_unique";
--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_kind_session_job_unique" ON "payments"."ledger_entries" USING btree ("kind", "session_id", "job_id") WHERE kind IN ('duplicate_payment', 'refund');
