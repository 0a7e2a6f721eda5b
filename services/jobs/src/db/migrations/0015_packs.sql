-- Packs ("Five testers for $5", issue 33): several jobs for one site paid in one checkout, each
-- slot for a different tester (pack_members' primary key), an unclaimed slot closed and refunded
-- at its fill deadline (status closed).
CREATE TABLE "jobs"."packs" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "poster_id" text NOT NULL,
  "size" integer NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs"."pack_members" (
  "pack_id" uuid NOT NULL,
  "tester_id" text NOT NULL,
  "job_id" uuid NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "pack_members_pk" PRIMARY KEY ("pack_id", "tester_id")
);
--> statement-breakpoint
CREATE INDEX "pack_members_tester_idx" ON "jobs"."pack_members" USING btree ("tester_id");
--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "pack_id" uuid;
--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "fill_deadline_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "closed_at" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX "jobs_pack_idx" ON "jobs"."jobs" USING btree ("pack_id") WHERE pack_id IS NOT NULL;
