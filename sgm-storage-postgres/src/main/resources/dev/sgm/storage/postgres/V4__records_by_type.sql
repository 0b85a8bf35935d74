-- Queries by type (a session brief's handoffs, rules, decisions, tasks, statuses) read the few
-- records of that type, not every record of the scope.
CREATE INDEX records_by_type ON records(scope_key, type, deleted, updated_us, pk, created_seq);
