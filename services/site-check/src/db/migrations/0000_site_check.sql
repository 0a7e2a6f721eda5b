CREATE SCHEMA "site_check";
--> statement-breakpoint
CREATE TABLE "site_check"."checks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" text NOT NULL,
	"url" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"status" text,
	"summary" jsonb,
	"details" jsonb,
	"links" jsonb,
	"blocked" jsonb,
	"failure_reason" text,
	"failure_detail" text,
	CONSTRAINT "checks_session_id_unique" UNIQUE("session_id")
);
--> statement-breakpoint
CREATE TABLE "site_check"."handled_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "site_check"."jobs" (
	"job_id" text PRIMARY KEY NOT NULL,
	"poster_id" text,
	"url" text,
	"session_id" text,
	"paid_at" timestamp with time zone,
	"tester_id" text,
	"announced_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "site_check"."outbox" (
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
CREATE TABLE "site_check"."screenshots" (
	"check_id" uuid NOT NULL,
	"size" text NOT NULL,
	"data_url" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "checks_state_idx" ON "site_check"."checks" USING btree ("state","created_at");--> statement-breakpoint
CREATE INDEX "jobs_session_idx" ON "site_check"."jobs" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "site_check"."outbox" USING btree ("seq") WHERE published_at IS NULL;--> statement-breakpoint
CREATE INDEX "screenshots_check_idx" ON "site_check"."screenshots" USING btree ("check_id");