ALTER TABLE "jobs"."jobs" ADD COLUMN "retest_of" uuid;--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "reserved_tester_id" text;--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "reserved_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "jobs_reserved_idx" ON "jobs"."jobs" USING btree ("reserved_tester_id") WHERE reserved_tester_id IS NOT NULL AND status = 'open';