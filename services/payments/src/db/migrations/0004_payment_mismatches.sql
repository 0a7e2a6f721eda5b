CREATE TABLE "payments"."payment_mismatches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" text NOT NULL,
	"job_id" text NOT NULL,
	"expected_cents" integer NOT NULL,
	"expected_currency" text NOT NULL,
	"received_cents" integer,
	"received_currency" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "payment_mismatches_once" ON "payments"."payment_mismatches" USING btree ("session_id","received_cents","received_currency");