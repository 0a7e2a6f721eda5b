CREATE TABLE "notifications"."digest_jobs" (
	"tester_id" text NOT NULL,
	"job_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "digest_jobs_tester_id_job_id_pk" PRIMARY KEY("tester_id","job_id")
);
--> statement-breakpoint
CREATE TABLE "notifications"."tested_sites" (
	"tester_id" text NOT NULL,
	"site_host" text NOT NULL,
	CONSTRAINT "tested_sites_tester_id_site_host_pk" PRIMARY KEY("tester_id","site_host")
);
--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "url" text;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "expected_completion_hours" integer;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "geo_rule" text;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "status" text DEFAULT 'unpaid' NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "paid_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "assistive_tech" text;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "fresh_eyes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "site_host" text;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "reserved_tester_id" text;--> statement-breakpoint
ALTER TABLE "notifications"."jobs" ADD COLUMN "reserved_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications"."preferences" ADD COLUMN "enabled" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications"."users" ADD COLUMN "country" text;--> statement-breakpoint
ALTER TABLE "notifications"."users" ADD COLUMN "assistive_tech" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications"."users" ADD COLUMN "last_digest_at" timestamp with time zone;