CREATE TABLE "notifications"."report_summaries" (
	"scope_id" text PRIMARY KEY NOT NULL,
	"job_ids" jsonb NOT NULL,
	"problems" jsonb NOT NULL,
	"last_submission_at" timestamp with time zone NOT NULL,
	"summarized_at" timestamp with time zone NOT NULL
);
