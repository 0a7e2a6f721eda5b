-- Report summaries ("The report gives a verdict", issue 51): per summary (a job's or a pack's), the last submission its time to summary was measured for.
CREATE TABLE "analytics"."summaries" (
	"scope_id" text PRIMARY KEY NOT NULL,
	"last_submission_at" timestamp with time zone NOT NULL
);
