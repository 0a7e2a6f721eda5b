CREATE TABLE "identity"."pending_signups" (
	"email" text PRIMARY KEY NOT NULL,
	"entry_id" text NOT NULL,
	"signed_up_at" timestamp with time zone DEFAULT now() NOT NULL
);
