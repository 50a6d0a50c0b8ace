-- How far the worker has purged each table's deletes from the change feed: a cursor that has
-- not read past purged_xid is 410 (docs/decisions/0011-change-feed.md). Empty at first: cursors
-- given before it are unsigned and refused anyway, and a read from no cursor starts past any
-- earlier purge.
-- CreateTable
CREATE TABLE "change_feed_horizon" (
    "table_name" TEXT NOT NULL,
    "purged_xid" BIGINT NOT NULL,
    "purged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_feed_horizon_pkey" PRIMARY KEY ("table_name")
);
