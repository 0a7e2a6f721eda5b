-- A tester_earning the platform funds (`source`: an upheld appeal of a failed session whose job
-- another tester completed): once per job and tester; the job's own earning stays once per job.
-- A payout is once per earning (ledger_payout_earning_unique), so it leaves the per-job index:
-- the platform-funded earning of a job is paid out beside the job's own one.
-- (The generated statements for checkout_sessions.job_ids, local_provider_sessions.quantity and
-- the per-session-and-job index are left out: 0006/0007 made them by hand before the snapshot.)
ALTER TABLE "payments"."ledger_entries" ADD COLUMN "source" text;--> statement-breakpoint
DROP INDEX "payments"."ledger_kind_job_unique";--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_kind_job_unique" ON "payments"."ledger_entries" USING btree ("kind","job_id") WHERE kind IN ('payment', 'platform_fee') OR (kind = 'tester_earning' AND source IS NULL);--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_platform_earning_unique" ON "payments"."ledger_entries" USING btree ("job_id","tester_id") WHERE kind = 'tester_earning' AND source IS NOT NULL;--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" ADD CONSTRAINT "ledger_source_check" CHECK ("payments"."ledger_entries"."source" IS NULL OR ("payments"."ledger_entries"."kind" = 'tester_earning' AND "payments"."ledger_entries"."source" LIKE 'platform:%'));
