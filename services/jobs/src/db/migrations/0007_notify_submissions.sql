-- The jobs_changed notification names the table that changed, and submissions notify too: a
-- tester's standing (approval, country, sites tested) depends only on users and submissions, so
-- the read cache keeps standings when only jobs change (a claim, a payment) and empties them when
-- users or submissions do.
CREATE TRIGGER "submissions_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "jobs"."submissions"
  FOR EACH STATEMENT EXECUTE FUNCTION "jobs"."notify_jobs_changed"();
