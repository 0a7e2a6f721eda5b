CREATE TABLE "payments"."cash_out_items" (
	"earning_id" uuid PRIMARY KEY NOT NULL,
	"cash_out_id" uuid NOT NULL,
	"job_id" text NOT NULL,
	"amount_cents" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."cash_outs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tester_id" text NOT NULL,
	"account_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"status" text DEFAULT 'processing' NOT NULL,
	"transfer_id" text,
	"last_error" text,
	"tries" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	CONSTRAINT "cash_outs_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "cash_outs_status_check" CHECK ("payments"."cash_outs"."status" IN ('processing', 'paid', 'failed')),
	CONSTRAINT "cash_outs_amount_check" CHECK ("payments"."cash_outs"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "payments"."ledger_entries" ADD COLUMN "cash_out_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "cash_outs_one_processing_per_tester" ON "payments"."cash_outs" USING btree ("tester_id") WHERE status = 'processing';--> statement-breakpoint
CREATE INDEX "cash_outs_tester_idx" ON "payments"."cash_outs" USING btree ("tester_id");--> statement-breakpoint
-- Idempotency-Key answers of POST /api/tester/cash-out (@htm/service-kit idempotency.ts), beside
-- the cash-outs they protect.
CREATE TABLE IF NOT EXISTS "payments"."idempotency_keys" (
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
CREATE INDEX IF NOT EXISTS "idempotency_keys_created_idx" ON "payments"."idempotency_keys" ("created_at");
