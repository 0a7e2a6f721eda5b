CREATE TABLE "identity"."tester_ratings" (
	"job_id" text PRIMARY KEY NOT NULL,
	"tester_id" uuid NOT NULL,
	"stars" integer NOT NULL,
	"rated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."users" ADD COLUMN "assistive_tech" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."users" ADD COLUMN "rating_sum" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."users" ADD COLUMN "rating_count" integer DEFAULT 0 NOT NULL;