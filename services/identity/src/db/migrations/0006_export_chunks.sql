CREATE TABLE "identity"."export_chunks" (
	"export_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "export_chunks_export_id_seq_pk" PRIMARY KEY("export_id","seq")
);
