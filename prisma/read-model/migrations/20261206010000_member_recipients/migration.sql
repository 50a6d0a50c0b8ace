-- Who received whose personal data (docs/decisions/0023-data-classes.md, "Recipients"): one row
-- per member and client, the classes received as a bit mask (api/data-classes.ts), first and
-- last time. Written before the data leaves the gateway or the worker; kept as proof after an
-- erasure, holding no personal value.
CREATE TABLE "member_recipients" (
    "member_id" INTEGER NOT NULL,
    "client_id" INTEGER NOT NULL,
    "classes" INTEGER NOT NULL,
    "first_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "last_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "member_recipients_pkey" PRIMARY KEY ("member_id", "client_id")
);
