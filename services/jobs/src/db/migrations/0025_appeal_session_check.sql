-- #52: a tester may appeal a failed session check (kind session_check), once, like a strike or a rating.
ALTER TABLE "jobs"."appeals" DROP CONSTRAINT "appeals_kind_check";--> statement-breakpoint
ALTER TABLE "jobs"."appeals" ADD CONSTRAINT "appeals_kind_check" CHECK ("kind" IN ('strike', 'rating', 'session_check'));
