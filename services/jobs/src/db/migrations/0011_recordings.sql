-- Issue #30: screen recordings uploaded over tus (their bytes live in the tus store: local disk or S3).
CREATE TABLE IF NOT EXISTS "jobs"."recordings" (
  "id" text PRIMARY KEY NOT NULL,
  "job_id" uuid NOT NULL,
  "tester_id" text NOT NULL,
  "status" text DEFAULT 'uploading' NOT NULL,
  "mime_type" text,
  "size_bytes" bigint,
  "duration_ms" integer,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_activity_at" timestamp with time zone DEFAULT now() NOT NULL,
  "completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "recordings_job_idx" ON "jobs"."recordings" ("job_id");
--> statement-breakpoint
ALTER TABLE "jobs"."submissions" ADD COLUMN "recording_id" text;
