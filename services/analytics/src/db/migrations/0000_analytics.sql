CREATE SCHEMA "analytics";
--> statement-breakpoint
CREATE TABLE "analytics"."daily" (
	"day" date PRIMARY KEY NOT NULL,
	"posted" integer DEFAULT 0 NOT NULL,
	"paid" integer DEFAULT 0 NOT NULL,
	"claimed" integer DEFAULT 0 NOT NULL,
	"submitted" integer DEFAULT 0 NOT NULL,
	"resubmitted" integer DEFAULT 0 NOT NULL,
	"completed_poster" integer DEFAULT 0 NOT NULL,
	"completed_admin" integer DEFAULT 0 NOT NULL,
	"completed_auto" integer DEFAULT 0 NOT NULL,
	"revisions" integer DEFAULT 0 NOT NULL,
	"releases" integer DEFAULT 0 NOT NULL,
	"refunds" integer DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	"earnings_cents" bigint DEFAULT 0 NOT NULL,
	"platform_fee_cents" bigint DEFAULT 0 NOT NULL,
	"payouts_cents" bigint DEFAULT 0 NOT NULL,
	"refunds_cents" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics"."daily_demand" (
	"day" date NOT NULL,
	"geo_rule" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "daily_demand_day_geo_rule_pk" PRIMARY KEY("day","geo_rule")
);
--> statement-breakpoint
CREATE TABLE "analytics"."durations" (
	"day" date NOT NULL,
	"metric" text NOT NULL,
	"bucket" integer NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "durations_day_metric_bucket_pk" PRIMARY KEY("day","metric","bucket")
);
--> statement-breakpoint
CREATE TABLE "analytics"."handled_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics"."jobs" (
	"job_id" text PRIMARY KEY NOT NULL,
	"geo_rule" text,
	"posted_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"first_claimed_at" timestamp with time zone,
	"last_claimed_at" timestamp with time zone,
	"last_released_at" timestamp with time zone,
	"first_submitted_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"claim_recorded" boolean DEFAULT false NOT NULL,
	"submit_recorded" boolean DEFAULT false NOT NULL,
	"result_recorded" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics"."outbox" (
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
CREATE TABLE "analytics"."testers" (
	"user_id" text PRIMARY KEY NOT NULL,
	"approved" boolean DEFAULT false NOT NULL,
	"country" text,
	"approval_as_of" timestamp with time zone,
	"last_active_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "jobs_open_idx" ON "analytics"."jobs" USING btree ("paid_at") WHERE completed_at IS NULL AND paid_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "analytics"."outbox" USING btree ("seq") WHERE published_at IS NULL;--> statement-breakpoint
CREATE INDEX "testers_active_idx" ON "analytics"."testers" USING btree ("last_active_at");