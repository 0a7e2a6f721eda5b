CREATE SCHEMA "payments";
--> statement-breakpoint
CREATE TABLE "payments"."checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"job_id" text NOT NULL,
	"poster_id" text NOT NULL,
	"title" text NOT NULL,
	"attempt" integer NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"checkout_url" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	CONSTRAINT "checkout_sessions_status_check" CHECK ("payments"."checkout_sessions"."status" IN ('open', 'paid', 'expired', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "payments"."handled_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."ledger_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"job_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"tester_id" text,
	"poster_id" text,
	"title" text,
	"session_id" text,
	"accepted_by" text,
	"earning_id" uuid,
	"transfer_id" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_kind_job_unique" UNIQUE("kind","job_id"),
	CONSTRAINT "ledger_payout_earning_unique" UNIQUE("earning_id"),
	CONSTRAINT "ledger_kind_check" CHECK ("payments"."ledger_entries"."kind" IN ('payment', 'tester_earning', 'platform_fee', 'payout')),
	CONSTRAINT "ledger_sign_check" CHECK (("payments"."ledger_entries"."kind" = 'payout' AND "payments"."ledger_entries"."amount_cents" < 0 AND "payments"."ledger_entries"."earning_id" IS NOT NULL) OR ("payments"."ledger_entries"."kind" <> 'payout' AND "payments"."ledger_entries"."amount_cents" > 0)),
	CONSTRAINT "ledger_tester_check" CHECK ("payments"."ledger_entries"."kind" NOT IN ('tester_earning', 'payout') OR "payments"."ledger_entries"."tester_id" IS NOT NULL)
);
--> statement-breakpoint
CREATE TABLE "payments"."local_provider_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"job_id" text NOT NULL,
	"poster_id" text NOT NULL,
	"title" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"success_url" text NOT NULL,
	"cancel_url" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"payment_status" text DEFAULT 'unpaid' NOT NULL,
	"cancelled_by_user" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "local_provider_sessions_idempotency_key_unique" UNIQUE("idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "payments"."local_provider_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"account_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"transfer_group" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "local_provider_transfers_idempotency_key_unique" UNIQUE("idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "payments"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"type" text NOT NULL,
	"subject" text NOT NULL,
	"envelope" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "payments"."payout_accounts" (
	"tester_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"account_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_accounts_account_id_unique" UNIQUE("account_id")
);
--> statement-breakpoint
CREATE TABLE "payments"."payout_attempts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"earning_id" uuid NOT NULL,
	"tester_id" text NOT NULL,
	"job_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"account_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"status" text DEFAULT 'started' NOT NULL,
	"transfer_id" text,
	"last_error" text,
	"tries" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_attempts_earning_id_unique" UNIQUE("earning_id"),
	CONSTRAINT "payout_attempts_idempotency_key_unique" UNIQUE("idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "payments"."provider_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"object_id" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "checkout_sessions_job_idx" ON "payments"."checkout_sessions" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "ledger_tester_idx" ON "payments"."ledger_entries" USING btree ("tester_id");--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "payments"."outbox" USING btree ("seq") WHERE published_at IS NULL;