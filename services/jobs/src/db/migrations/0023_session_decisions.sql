-- #52: who released a failed session (admin | appeal), when the admin confirmed a failure (a strike), and which admin decided.
ALTER TABLE "jobs"."session_checks" ADD COLUMN "released_by" text;--> statement-breakpoint
ALTER TABLE "jobs"."session_checks" ADD COLUMN "confirmed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs"."session_checks" ADD COLUMN "decided_by" text;