-- The terminal-runs guard (0001_guards) ran its PL/pgSQL function on every UPDATE of runs — every
-- claim, checkpoint, lease renewal and terminal write — only to find the run live and return. The
-- same check as the trigger's WHEN clause is evaluated without calling the function at all, so live
-- runs' updates pay nothing and an UPDATE of a terminal run is still refused by the same function.
DROP TRIGGER runs_terminal_immutable ON runs;--> statement-breakpoint
CREATE TRIGGER runs_terminal_immutable BEFORE UPDATE ON runs
  FOR EACH ROW
  WHEN (OLD.status IN ('completed', 'failed', 'cancelled'))
  EXECUTE FUNCTION runifold_terminal_runs_immutable();
--> statement-breakpoint
-- runs is a queue as much as a record: every claim, renewal and terminal write leaves a dead row
-- version and dead entries in its claim and lease indexes, which every claim then walks past until
-- a vacuum removes them. Postgres's defaults wait for 20 % of the table to be dead (2M rows at 10M
-- runs); these start a vacuum after 2 % (or 10,000 rows), and analyse as often.
ALTER TABLE runs SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 10000,
                      autovacuum_analyze_scale_factor = 0.02);
