-- #52: session checks per day (checked, borderline, failed) and free replacements, for the weekly replacement rate.
ALTER TABLE "analytics"."daily" ADD COLUMN "sessions_checked" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "analytics"."daily" ADD COLUMN "sessions_borderline" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "analytics"."daily" ADD COLUMN "sessions_failed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "analytics"."daily" ADD COLUMN "replacements" integer DEFAULT 0 NOT NULL;
