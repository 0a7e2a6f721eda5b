CREATE TABLE "jobs"."ratings" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"tester_id" text NOT NULL,
	"poster_id" text NOT NULL,
	"stars" integer NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "fresh_eyes" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "assistive_tech" text;--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "site_host" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs"."submissions" ADD COLUMN "minutes_spent" integer;--> statement-breakpoint
ALTER TABLE "jobs"."submissions" ADD COLUMN "claim_to_submit_minutes" integer;--> statement-breakpoint
ALTER TABLE "jobs"."users" ADD COLUMN "assistive_tech" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs"."users" ADD COLUMN "rating_sum" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs"."users" ADD COLUMN "rating_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "ratings_tester_idx" ON "jobs"."ratings" USING btree ("tester_id");--> statement-breakpoint
CREATE INDEX "submissions_tester_idx" ON "jobs"."submissions" USING btree ("tester_id");--> statement-breakpoint
CREATE INDEX "submissions_minutes_idx" ON "jobs"."submissions" USING btree ("submitted_at" DESC NULLS LAST) WHERE minutes_spent IS NOT NULL;--> statement-breakpoint
UPDATE "jobs"."jobs" SET "site_host" = regexp_replace(lower(substring("url" from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)')), '^www\.', '') WHERE "site_host" = '';
