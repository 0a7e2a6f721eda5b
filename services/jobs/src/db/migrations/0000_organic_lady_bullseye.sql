CREATE SCHEMA "jobs";
--> statement-breakpoint
CREATE TABLE "jobs"."files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"submission_id" uuid,
	"kind" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"ext" text NOT NULL,
	"size" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs"."handled_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs"."jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"url" text NOT NULL,
	"what_to_test" text NOT NULL,
	"budget_cents" integer DEFAULT 100 NOT NULL,
	"expected_completion_hours" integer DEFAULT 48 NOT NULL,
	"geo_rule" text DEFAULT 'us_pr' NOT NULL,
	"requirements" jsonb NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"payment_status" text DEFAULT 'unpaid' NOT NULL,
	"checkout_session_id" text,
	"checkout_attempts" integer DEFAULT 0 NOT NULL,
	"checkout_cancelled_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"poster_id" text NOT NULL,
	"poster_email" text DEFAULT '' NOT NULL,
	"poster_name" text DEFAULT '' NOT NULL,
	"tester_id" text,
	"current_submission_id" uuid,
	"revision_count" integer DEFAULT 0 NOT NULL,
	"last_review" jsonb,
	"accepted_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone,
	"submitted_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"claim_deadline_at" timestamp with time zone,
	"auto_accept_at" timestamp with time zone,
	"revision_deadline_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "jobs"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"type" text NOT NULL,
	"subject" text NOT NULL,
	"envelope" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "jobs"."submissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" uuid NOT NULL,
	"tester_id" text NOT NULL,
	"revision" integer NOT NULL,
	"variant" text NOT NULL,
	"submitted_by_name" text NOT NULL,
	"submitted_by_location" text,
	"device_used" text,
	"browser_used" text,
	"key_findings" jsonb NOT NULL,
	"requirement_responses" jsonb NOT NULL,
	"general_feedback" text,
	"preview_file_id" uuid,
	"file_ids" jsonb NOT NULL,
	"submitted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"auto_accept_at" timestamp with time zone,
	"accepted_at" timestamp with time zone,
	"accepted_by" text
);
--> statement-breakpoint
CREATE TABLE "jobs"."users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"type" text,
	"approved" boolean,
	"country" text,
	"location" text,
	"strikes" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "files_job_idx" ON "jobs"."files" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "files_storage_key_idx" ON "jobs"."files" USING btree ("storage_key");--> statement-breakpoint
CREATE INDEX "jobs_available_idx" ON "jobs"."jobs" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE status = 'open' AND payment_status = 'paid';--> statement-breakpoint
CREATE INDEX "jobs_poster_idx" ON "jobs"."jobs" USING btree ("poster_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_tester_idx" ON "jobs"."jobs" USING btree ("tester_id","status");--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "jobs"."outbox" USING btree ("seq") WHERE published_at IS NULL;--> statement-breakpoint
CREATE INDEX "submissions_job_idx" ON "jobs"."submissions" USING btree ("job_id","submitted_at" DESC NULLS LAST);