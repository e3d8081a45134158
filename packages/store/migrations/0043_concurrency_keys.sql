-- Concurrency keys and priority (issue 32, docs/authoring.md "Concurrency keys and priority").
-- defineWorkflow({ concurrency: { key, limit }, priority }) is published with the definition
-- (workflow_definitions.concurrency: {"key": "<fixed>"} or {"path": ["a", "b"]} — a JSON pointer into the
-- input, split — and "limit"), so the store stamps every new run from it, whoever creates the run (the web
-- from a route, the SDK, a child start, the scheduler, a compensation run): no creator has to know the key.
--
-- A run with a key holds a slot of (tenant, workflow name, key) from its admission until it ends, whatever
-- it does meanwhile (sleeps, waits for input or approval): one deploy per service stays one deploy while the
-- first waits for its approval. Admission is decided under one advisory lock per slot:
-- - at creation: a slot is free (fewer than `limit` live holders) → the run is admitted (concurrency_held)
--   and queued as usual; otherwise it is set aside: queued with claimable_at NULL (in neither claim index,
--   so no claim ever reads it — a full key cannot fill the claim window or block other keys' runs) and
--   wait_detail {concurrency: {key, limit}};
-- - when a holder ends (completed, failed, cancelled by anyone, timed out, failed for lost attempts — any
--   update of its status to a terminal one), in the transaction that ends it: the oldest set-aside run of
--   the highest priority is admitted and made claimable (and woken by NOTIFY).
-- A crashed worker's run keeps its slot while its lease expires and another worker takes it over (it is
-- the same run, still under way); it frees the slot when it ends, or when its lost attempts fail it.
-- The count is of rows (live runs with concurrency_held), never a counter, so nothing can drift.
ALTER TABLE "workflow_definitions" ADD COLUMN "concurrency" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_definitions" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "concurrency_limit" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "concurrency_held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- serves: the count of a slot's live holders (bounded by its limit)
CREATE INDEX "runs_concurrency_held_idx" ON "runs" USING btree ("tenant_id","workflow_name","concurrency_key")
  WHERE concurrency_held AND status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input');--> statement-breakpoint
-- serves: the next set-aside run of a slot (highest priority, then oldest)
CREATE INDEX "runs_concurrency_waiting_idx" ON "runs" USING btree ("tenant_id","workflow_name","concurrency_key","priority" DESC,"created_at","id")
  WHERE concurrency_key IS NOT NULL AND NOT concurrency_held AND status = 'queued';--> statement-breakpoint
-- One lock per slot serialises every admission decision of that slot (creation and holders' ends).
CREATE OR REPLACE FUNCTION runifold_concurrency_lock(tenant uuid, workflow text, slot text) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended('runifold_concurrency:' || tenant::text || ':' || workflow || ':' || slot, 0));
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_concurrency_holders(tenant uuid, workflow text, slot text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT count(*) FROM runs WHERE tenant_id = tenant AND workflow_name = workflow AND concurrency_key = slot AND concurrency_held
     AND status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input');
$$;--> statement-breakpoint
-- Admits set-aside runs of a slot while it has room (each waiter's own limit: it is its version's). The
-- caller holds the slot's lock. A waiter another transaction has locked is skipped, not waited for (a
-- wait here, holding the slot's lock, could deadlock with a statement that locked it and then ends a
-- holder of the same slot); such a waiter is admitted by the next creation or end in the slot.
CREATE OR REPLACE FUNCTION runifold_concurrency_admit(tenant uuid, workflow text, slot text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  waiter record;
  admitted integer := 0;
BEGIN
  LOOP
    SELECT id, concurrency_limit, workflow_key INTO waiter FROM runs
     WHERE tenant_id = tenant AND workflow_name = workflow AND concurrency_key = slot
       AND concurrency_key IS NOT NULL AND NOT concurrency_held AND status = 'queued'
     ORDER BY priority DESC, created_at, id
     LIMIT 1 FOR UPDATE SKIP LOCKED;
    EXIT WHEN waiter.id IS NULL OR runifold_concurrency_holders(tenant, workflow, slot) >= waiter.concurrency_limit;
    UPDATE runs SET concurrency_held = true, claimable_at = now(), wait_detail = NULL, status_message = NULL, updated_at = now()
     WHERE id = waiter.id;
    INSERT INTO run_events (run_id, type, payload)
    VALUES (waiter.id, 'concurrency_admitted', jsonb_build_object('key', slot));
    PERFORM pg_notify('runifold_wake', waiter.workflow_key), pg_notify('runifold_task', waiter.id::text);
    admitted := admitted + 1;
    waiter := NULL;
  END LOOP;
  RETURN admitted;
END $$;--> statement-breakpoint
-- Stamps a new run from its published definition (none published yet: the run is neither limited nor
-- prioritised) and decides its admission.
CREATE OR REPLACE FUNCTION runifold_concurrency_stamp() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  def record;
  slot text;
BEGIN
  SELECT d.concurrency, d.priority INTO def FROM workflow_definitions d
   WHERE d.name = NEW.workflow_name AND d.version = NEW.workflow_version;
  IF NOT FOUND THEN RETURN NEW; END IF;
  NEW.priority := def.priority;
  IF def.concurrency IS NULL THEN RETURN NEW; END IF;
  slot := CASE WHEN def.concurrency ? 'path'
               THEN coalesce(NEW.input #>> ARRAY(SELECT jsonb_array_elements_text(def.concurrency->'path')), '')
               ELSE def.concurrency->>'key' END;
  NEW.concurrency_key := slot;
  NEW.concurrency_limit := (def.concurrency->>'limit')::integer;
  IF NEW.status <> 'queued' OR NEW.claimable_at IS NULL THEN RETURN NEW; END IF;
  PERFORM runifold_concurrency_lock(NEW.tenant_id, NEW.workflow_name, slot);
  -- Older waiters first, should any have been skipped while locked (runifold_concurrency_admit).
  PERFORM runifold_concurrency_admit(NEW.tenant_id, NEW.workflow_name, slot);
  IF runifold_concurrency_holders(NEW.tenant_id, NEW.workflow_name, slot) < NEW.concurrency_limit THEN
    NEW.concurrency_held := true;
  ELSE
    NEW.claimable_at := NULL;
    NEW.wait_detail := jsonb_build_object('concurrency', jsonb_build_object('key', slot, 'limit', NEW.concurrency_limit));
    NEW.status_message := format('Waiting for a free slot of concurrency key %L (limit %s)', slot, NEW.concurrency_limit);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER runs_concurrency_stamp BEFORE INSERT ON runs
  FOR EACH ROW EXECUTE FUNCTION runifold_concurrency_stamp();--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_concurrency_release() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM runifold_concurrency_lock(NEW.tenant_id, NEW.workflow_name, NEW.concurrency_key);
  PERFORM runifold_concurrency_admit(NEW.tenant_id, NEW.workflow_name, NEW.concurrency_key);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER runs_concurrency_release AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (NEW.concurrency_held AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('completed', 'failed', 'cancelled'))
  EXECUTE FUNCTION runifold_concurrency_release();
