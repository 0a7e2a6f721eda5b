-- Repairs the tester projection for testers approved through a landing-page signup.
-- Until this release TesterApprovalChanged updated an existing row without setting its type, so
-- a tester who signed in pre-approved (UserSignedUp, then TesterApprovalChanged, never a
-- UserRoleChosen) stayed with type NULL and the admin could not assign her a job. Only identity's
-- tester events (TesterApprovalChanged) and strikes ever set a row's approval without its type,
-- and identity sends those only for testers: this sets what the fixed handler would have set.
UPDATE "jobs"."users" SET "type" = 'tester', "updated_at" = now()
WHERE "type" IS NULL AND ("approved" IS NOT NULL OR "strikes" > 0);
