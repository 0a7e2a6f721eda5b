-- The admin actions' audit log: append-only. Rows come from the actions' events (event_id unique:
-- a redelivered event adds nothing) and from admin's own actions; a trigger refuses every UPDATE,
-- DELETE and TRUNCATE, whoever sends it.
CREATE TABLE IF NOT EXISTS "admin"."audit_log" (
  "id" bigserial PRIMARY KEY,
  "event_id" text NOT NULL,
  "at" timestamp with time zone NOT NULL,
  "actor_id" text,
  "action" text NOT NULL,
  "target" text NOT NULL,
  "details" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "correlation_id" text,
  "recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "audit_log_event_id_unique" UNIQUE ("event_id")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_log_action_idx" ON "admin"."audit_log" ("action", "id");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "admin"."audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin.audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_update_delete" BEFORE UPDATE OR DELETE ON "admin"."audit_log"
  FOR EACH ROW EXECUTE FUNCTION "admin"."audit_log_append_only"();
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "admin"."audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "admin"."audit_log_append_only"();
--> statement-breakpoint
-- Clear-all confirmations: one per preview, bound to the fingerprint of the jobs previewed and to
-- the admin who asked; single use (used_at), short-lived (expires_at). Only a hash of the token.
CREATE TABLE IF NOT EXISTS "admin"."clear_confirmations" (
  "token_hash" text PRIMARY KEY,
  "admin_id" text NOT NULL,
  "fingerprint" text NOT NULL,
  "preview" jsonb NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "used_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
