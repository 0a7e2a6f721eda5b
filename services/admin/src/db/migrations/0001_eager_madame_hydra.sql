CREATE TABLE "admin"."leads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"email" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leads_seq_unique" UNIQUE("seq")
);
--> statement-breakpoint
CREATE TABLE "admin"."waitlist_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"kind" text NOT NULL,
	"name" text,
	"url" text,
	"note" text,
	"approved" boolean DEFAULT false NOT NULL,
	"user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "waitlist_entries_seq_unique" UNIQUE("seq")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "waitlist_entries_email_role_uq" ON "admin"."waitlist_entries" USING btree ("email","role");--> statement-breakpoint
CREATE INDEX "waitlist_entries_kind_seq_idx" ON "admin"."waitlist_entries" USING btree ("kind","seq");