-- Issue trackers (issue 32, part 4): a poster's GitHub / Jira credentials (the secret AES-256-GCM
-- encrypted) and the issue made from each finding (one per finding and tracker).
CREATE TABLE "jobs"."tracker_credentials" (
  "owner_id" text NOT NULL,
  "kind" text NOT NULL,
  "settings" jsonb NOT NULL,
  "secret_enc" text NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "tracker_credentials_pk" PRIMARY KEY ("owner_id", "kind")
);
--> statement-breakpoint
CREATE TABLE "jobs"."tracker_issues" (
  "job_id" uuid NOT NULL,
  "finding_index" integer NOT NULL,
  "kind" text NOT NULL,
  "url" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "tracker_issues_pk" PRIMARY KEY ("job_id", "finding_index", "kind")
);
