-- Tombstones are immutable: neither UPDATE nor DELETE, by anyone.
CREATE OR REPLACE FUNCTION runifold_tombstones_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'tombstones are immutable' USING ERRCODE = 'check_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER tombstones_immutable BEFORE UPDATE OR DELETE ON tombstones
  FOR EACH ROW EXECUTE FUNCTION runifold_tombstones_immutable();
--> statement-breakpoint
CREATE TRIGGER tombstones_no_truncate BEFORE TRUNCATE ON tombstones
  FOR EACH STATEMENT EXECUTE FUNCTION runifold_tombstones_immutable();
--> statement-breakpoint
INSERT INTO retention_fence (id, epoch) VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE operators ADD CONSTRAINT operators_role_check CHECK (role IN ('admin', 'operator'));
