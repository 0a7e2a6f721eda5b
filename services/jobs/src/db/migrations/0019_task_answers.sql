ALTER TABLE "jobs"."submissions" ADD COLUMN "task_answers" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs"."submissions" ADD COLUMN "sus_answers" jsonb;