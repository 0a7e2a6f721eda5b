-- Listeners (the cached list of available jobs, the cached tester standing) learn of every
-- change to jobs or the tester projection, from any process, raw SQL included.
-- Statement-level: one notification per statement; Postgres folds repeats within a transaction.
CREATE OR REPLACE FUNCTION "jobs"."notify_jobs_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobs_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "jobs_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "jobs"."jobs"
  FOR EACH STATEMENT EXECUTE FUNCTION "jobs"."notify_jobs_changed"();
--> statement-breakpoint
CREATE TRIGGER "users_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "jobs"."users"
  FOR EACH STATEMENT EXECUTE FUNCTION "jobs"."notify_jobs_changed"();
