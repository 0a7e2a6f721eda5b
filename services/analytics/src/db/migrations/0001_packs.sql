-- Packs ("Five testers for $5", issue 33): packs ordered, testers ordered in them and unfilled slots refunded, per day.
ALTER TABLE "analytics"."daily" ADD COLUMN "packs" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "analytics"."daily" ADD COLUMN "pack_testers" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "analytics"."daily" ADD COLUMN "pack_slots_refunded" integer DEFAULT 0 NOT NULL;
