CREATE TABLE "jobs"."finding_links" (
	"scope_id" uuid NOT NULL,
	"a_submission_id" uuid NOT NULL,
	"a_index" integer NOT NULL,
	"b_submission_id" uuid NOT NULL,
	"b_index" integer NOT NULL,
	"same" boolean NOT NULL,
	"decided_by" text NOT NULL,
	"decided_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "finding_links_scope_id_a_submission_id_a_index_b_submission_id_b_index_pk" PRIMARY KEY("scope_id","a_submission_id","a_index","b_submission_id","b_index")
);
--> statement-breakpoint
CREATE TABLE "jobs"."report_summaries" (
	"scope_id" uuid PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"request_seq" bigint DEFAULT 1 NOT NULL,
	"computed_seq" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"input_hash" text,
	"summary" jsonb,
	"generated_at" timestamp with time zone,
	"last_submission_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "report_summaries_due_idx" ON "jobs"."report_summaries" USING btree ("next_attempt_at") WHERE computed_seq < request_seq;