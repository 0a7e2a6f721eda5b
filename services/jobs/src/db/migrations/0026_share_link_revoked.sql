-- #51: a revoked share link is kept, marked, so that "Download my data" says it was revoked (it opens nothing).
ALTER TABLE "jobs"."share_links" ADD COLUMN "revoked_at" timestamp with time zone;