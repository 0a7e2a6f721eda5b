-- #52: which session a job was replaced for (check | poster) and when the admin released a held report.
ALTER TABLE "jobs"."session_checks" ADD COLUMN "replaced_by" text;--> statement-breakpoint
ALTER TABLE "jobs"."session_checks" ADD COLUMN "released_at" timestamp with time zone;