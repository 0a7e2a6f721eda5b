-- Gives testers the location their country implies (US -> USA, PR -> PR), as the role choice and
-- "Update Your Profile" now do. Until this release only the role screen set a location, so a tester
-- pre-approved through the landing-page signup (who never sees that screen) kept location NULL
-- after setting a country. Canadian testers keep what they have: Canada is neither location.
-- Their next token carries the location; jobs' projection gets it with the next
-- TesterApprovalChanged, and until then jobs falls back to the token's location.
UPDATE "identity"."users"
SET "location" = CASE "country" WHEN 'US' THEN 'USA' ELSE 'PR' END, "updated_at" = now()
WHERE "type" = 'tester' AND "country" IN ('US', 'PR')
  AND "location" IS DISTINCT FROM CASE "country" WHEN 'US' THEN 'USA' ELSE 'PR' END;
