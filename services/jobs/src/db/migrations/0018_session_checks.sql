-- #52 Every session checked: one check per submission, the held marker, jobs asking for a recording.
CREATE TABLE "jobs"."session_checks" (
	"submission_id" uuid PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"tester_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"verdict" text,
	"reasons" jsonb,
	"metrics" jsonb,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"checked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "recording_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs"."submissions" ADD COLUMN "held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "session_checks_due_idx" ON "jobs"."session_checks" USING btree ("next_attempt_at") WHERE status = 'pending';
