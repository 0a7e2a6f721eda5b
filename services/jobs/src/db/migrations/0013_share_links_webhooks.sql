-- Findings leave the product (issue 32): one live share link per job, and the poster's webhook
-- endpoints with their deliveries (the delivery row is the queue: the worker polls due rows).
CREATE TABLE "jobs"."share_links" (
  "job_id" uuid PRIMARY KEY NOT NULL,
  "nonce" text NOT NULL,
  "token_hash" text NOT NULL,
  "created_by" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "share_links_token_hash_idx" ON "jobs"."share_links" ("token_hash");
--> statement-breakpoint
CREATE TABLE "jobs"."webhook_endpoints" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "owner_id" text NOT NULL,
  "url" text NOT NULL,
  "events" jsonb NOT NULL,
  "secret" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "failing_since" timestamp with time zone,
  "disabled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "webhook_endpoints_owner_idx" ON "jobs"."webhook_endpoints" ("owner_id");
--> statement-breakpoint
CREATE TABLE "jobs"."webhook_deliveries" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "endpoint_id" uuid NOT NULL REFERENCES "jobs"."webhook_endpoints"("id") ON DELETE CASCADE,
  "event_id" text NOT NULL,
  "event_type" text NOT NULL,
  "payload" jsonb NOT NULL,
  "status" text DEFAULT 'pending' NOT NULL,
  "attempts" integer DEFAULT 0 NOT NULL,
  "last_response_code" integer,
  "last_error" text,
  "next_attempt_at" timestamp with time zone,
  "locked_until" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_idx" ON "jobs"."webhook_deliveries" ("endpoint_id", "event_id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "jobs"."webhook_deliveries" ("next_attempt_at") WHERE status = 'pending';
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "jobs"."webhook_deliveries" ("endpoint_id", "created_at" DESC);
