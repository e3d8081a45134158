-- Leaves a fifth of every runs page free, so the hot path's per-step update (checkpointSteps:
-- checkpoints, lost_attempts, updated_at — no indexed column) can be a HOT update that writes the
-- new row version on the same page and touches none of the table's indexes. Applies to pages
-- written from now on; a VACUUM FULL or pg_repack rewrites existing ones if wanted.
ALTER TABLE runs SET (fillfactor = 80);
