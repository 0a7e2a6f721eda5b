-- #34 Reasons and one appeal: every strike is its own row (with its reason, appealable once),
-- ratings can be overturned (out of the average), and appeals with the admin's decision.
CREATE TABLE "jobs"."strikes" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "tester_id" text NOT NULL,
  "job_id" uuid NOT NULL,
  "reason" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "overturned_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "strikes_tester_idx" ON "jobs"."strikes" ("tester_id", "job_id");
--> statement-breakpoint
-- Backfill: the last release of each job that gave its tester a strike (its time is unknown: now).
INSERT INTO "jobs"."strikes" ("tester_id", "job_id", "reason", "created_at")
SELECT "released_tester_id", "id", "release_reason", now() FROM "jobs"."jobs"
WHERE "released_tester_id" IS NOT NULL AND "release_reason" IN ('claim_timeout', 'revision_expired');
--> statement-breakpoint
ALTER TABLE "jobs"."ratings" ADD COLUMN "overturned_at" timestamp with time zone;
--> statement-breakpoint
CREATE TABLE "jobs"."appeals" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "tester_id" text NOT NULL,
  "job_id" uuid NOT NULL,
  "kind" text NOT NULL,
  "message" text NOT NULL,
  "status" text DEFAULT 'open' NOT NULL,
  "decision_note" text,
  "decided_by" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "decided_at" timestamp with time zone,
  CONSTRAINT "appeals_once" UNIQUE ("tester_id", "job_id", "kind"),
  CONSTRAINT "appeals_kind_check" CHECK ("kind" IN ('strike', 'rating')),
  CONSTRAINT "appeals_status_check" CHECK ("status" IN ('open', 'overturned', 'upheld'))
);
--> statement-breakpoint
CREATE INDEX "appeals_status_idx" ON "jobs"."appeals" ("status", "created_at");
