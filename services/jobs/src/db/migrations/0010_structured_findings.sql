-- Issue #30: each key finding's details (severity, steps, expected, actual, at_ms), in key_findings' order.
ALTER TABLE "jobs"."submissions" ADD COLUMN "finding_details" jsonb DEFAULT '[]'::jsonb NOT NULL;
