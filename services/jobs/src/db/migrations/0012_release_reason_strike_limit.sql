-- #29: why a job was last taken from its tester is the job's own record (it was read from the
-- outbox, whose published rows are deleted after 7 days), and the strike limit identity announces
-- for each tester is kept in the users projection. Backfill: the latest JobReleased still in the outbox.
ALTER TABLE "jobs"."jobs" ADD COLUMN "released_tester_id" text;--> statement-breakpoint
ALTER TABLE "jobs"."jobs" ADD COLUMN "release_reason" text;--> statement-breakpoint
ALTER TABLE "jobs"."users" ADD COLUMN "strike_limit" integer;--> statement-breakpoint
UPDATE "jobs"."jobs" AS j SET "released_tester_id" = r.tester_id, "release_reason" = r.reason
FROM (
  SELECT DISTINCT ON ("subject") "subject", "envelope"->'data'->>'testerId' AS tester_id, "envelope"->'data'->>'reason' AS reason
  FROM "jobs"."outbox" WHERE "type" = 'JobReleased' ORDER BY "subject", "seq" DESC
) AS r
WHERE j."id"::text = r."subject";
