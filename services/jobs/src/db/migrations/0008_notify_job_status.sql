-- Every status change of a job, from any process, raw SQL included, as `<job id>:<status>` on
-- the job_status channel (`<job id>:deleted` for a deleted job, `*` after a TRUNCATE): the claim
-- gate of each jobs process remembers which jobs are claimed and answers a claim of one of them
-- 409 job_taken without reading it. Row-level, and only when the status changes: a job's life
-- has a handful of them.
CREATE OR REPLACE FUNCTION "jobs"."notify_job_status"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('job_status', '*');
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('job_status', OLD.id::text || ':deleted');
  ELSE
    PERFORM pg_notify('job_status', NEW.id::text || ':' || NEW.status);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "job_status_changed" AFTER UPDATE OF "status" ON "jobs"."jobs"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION "jobs"."notify_job_status"();
--> statement-breakpoint
CREATE TRIGGER "job_deleted" AFTER DELETE ON "jobs"."jobs"
  FOR EACH ROW EXECUTE FUNCTION "jobs"."notify_job_status"();
--> statement-breakpoint
CREATE TRIGGER "jobs_truncated" AFTER TRUNCATE ON "jobs"."jobs"
  FOR EACH STATEMENT EXECUTE FUNCTION "jobs"."notify_job_status"();
