-- Idempotency-Key answers of POST /api/jobs, checkout, submit-work/submissions and review
-- (@htm/service-kit idempotency.ts): beside the jobs they protect, so a Redis wipe cannot
-- make a retried POST create a second job.
CREATE TABLE IF NOT EXISTS "jobs"."idempotency_keys" (
  "user_id" text NOT NULL,
  "key" text NOT NULL,
  "fingerprint" text NOT NULL,
  "status" integer,
  "body" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "locked_until" timestamp with time zone NOT NULL,
  PRIMARY KEY ("user_id", "key")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "idempotency_keys_created_idx" ON "jobs"."idempotency_keys" ("created_at");
