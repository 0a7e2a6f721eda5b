CREATE TABLE "identity"."account_deletions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"requested_by" uuid,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"cancelled_at" timestamp with time zone,
	"pseudonym" uuid,
	"event_id" uuid,
	"services_done" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"erased_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."data_exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"parts_done" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"parts_total" integer NOT NULL,
	"requested_by" uuid,
	"size_bytes" integer,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ready_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "account_deletions_open_uq" ON "identity"."account_deletions" USING btree ("user_id") WHERE status IN ('scheduled', 'erasing');--> statement-breakpoint
CREATE INDEX "account_deletions_due_idx" ON "identity"."account_deletions" USING btree ("due_at") WHERE status = 'scheduled';--> statement-breakpoint
CREATE INDEX "data_exports_user_idx" ON "identity"."data_exports" USING btree ("user_id","requested_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "data_exports_status_idx" ON "identity"."data_exports" USING btree ("status");