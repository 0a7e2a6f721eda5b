CREATE TABLE "jobs"."site_checks" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"status" text,
	"summary" jsonb,
	"failure_reason" text
);
