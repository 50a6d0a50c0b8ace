-- Least privilege on the dashboard's database: the worker only reads it (and its binary log);
-- the gateway writes members the way the dashboard does (members and their per-branch
-- counters), nothing else.
-- The same grants as scripts/legacy/legacy-users.ts (tests and the demo).
CREATE USER IF NOT EXISTS 'api_sync'@'%' IDENTIFIED BY 'api_sync';
GRANT SELECT ON dashboard.* TO 'api_sync'@'%';
-- Reading the binary log, for SYNC_SOURCE=binlog (docs/decisions/0016); unused while it polls.
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'api_sync'@'%';
CREATE USER IF NOT EXISTS 'api_gateway'@'%' IDENTIFIED BY 'api_gateway';
GRANT SELECT ON dashboard.branches TO 'api_gateway'@'%';
GRANT SELECT, INSERT, UPDATE ON dashboard.members TO 'api_gateway'@'%';
GRANT SELECT, INSERT, UPDATE ON dashboard.member_counters TO 'api_gateway'@'%';
