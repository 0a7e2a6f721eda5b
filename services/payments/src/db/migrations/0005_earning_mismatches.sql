CREATE TABLE "payments"."earning_mismatches" (
	"job_id" text PRIMARY KEY NOT NULL,
	"tester_id" text NOT NULL,
	"poster_id" text NOT NULL,
	"title" text,
	"event_id" text NOT NULL,
	"reason" text NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
