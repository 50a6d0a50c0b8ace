-- Erasures of members (docs/decisions/0023-data-classes.md, "Erasure"): one row per erased
-- member, holding no personal value. The change feed and webhooks tell the member's recipients
-- of it as a change of op `erase`; the row is the receipt and its proof.
CREATE TABLE "member_erasures" (
    "member_id" INTEGER NOT NULL,
    "member_no" TEXT NOT NULL,
    "erased_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "reason" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    -- Set once every step is done; a receipt not completed is an erasure a retry finishes.
    "completed" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "member_erasures_pkey" PRIMARY KEY ("member_id")
);
