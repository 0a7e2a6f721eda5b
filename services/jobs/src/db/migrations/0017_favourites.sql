-- #34 Favourite testers: a poster's favourites (testers whose work on their jobs they accepted).
CREATE TABLE "jobs"."favourites" (
  "poster_id" text NOT NULL,
  "tester_id" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "favourites_poster_id_tester_id_pk" PRIMARY KEY ("poster_id", "tester_id")
);
--> statement-breakpoint
CREATE INDEX "favourites_tester_idx" ON "jobs"."favourites" ("tester_id");
