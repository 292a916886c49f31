/**
 * The schema, as numbered migrations applied in order at start (each in its own transaction,
 * recorded in `schema_migrations`). Never edit a released migration: add the next one.
 *
 * Seed 002's invariants hold in the schema itself, so a writer that skipped core's validation
 * (or two writers racing) still cannot store a broken trace:
 * - `(organization_id, trace_id, id)` is unique: a block id is unique within its trace.
 * - A TOOL_CALL's `call_id` is unique per trace, a TOOL_RESULT's `(call_id, seq)` too (partial
 *   unique indexes; results without `seq` never collide).
 * - The parent is a foreign key on `(organization_id, trace_id, parent_block_id,
 *   parent_sub_type)` to `(organization_id, trace_id, id, sub_type)`: no orphans, no parent in
 *   another trace or organization, and the parent really has the sub type the row claims; a
 *   CHECK then allows only MESSAGE → nothing, TOOL_CALL / THINK → MESSAGE, TOOL_RESULT →
 *   TOOL_CALL, and the block type each sub type implies.
 * @internal
 */
export const migrations: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'organizations, api keys, traces and trace blocks',
    sql: `
CREATE TABLE organizations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  organization_id INTEGER NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  secret_hash BLOB NOT NULL,
  name TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_organization ON api_keys (organization_id);

CREATE TABLE traces (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  block_count INTEGER NOT NULL DEFAULT 0,
  first_user_message TEXT,
  first_user_message_at TEXT,
  first_user_message_block TEXT,
  error_count INTEGER NOT NULL DEFAULT 0,
  cost_micro_usd INTEGER NOT NULL DEFAULT 0,
  violation_count INTEGER NOT NULL DEFAULT 0,
  UNIQUE (organization_id, id)
);

CREATE TABLE trace_blocks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL,
  trace_id TEXT NOT NULL,
  id TEXT NOT NULL,
  block_type TEXT NOT NULL,
  sub_type TEXT NOT NULL,
  parent_block_id TEXT,
  parent_sub_type TEXT,
  call_id TEXT,
  result_seq INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (organization_id, trace_id, id),
  UNIQUE (organization_id, trace_id, id, sub_type),
  FOREIGN KEY (organization_id, trace_id)
    REFERENCES traces (organization_id, id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, trace_id, parent_block_id, parent_sub_type)
    REFERENCES trace_blocks (organization_id, trace_id, id, sub_type)
    DEFERRABLE INITIALLY DEFERRED,
  CHECK (
    (sub_type = 'MESSAGE' AND block_type = 'MESSAGE'
      AND parent_block_id IS NULL AND parent_sub_type IS NULL)
    OR (sub_type IN ('TOOL_CALL', 'THINK') AND block_type = 'ACT'
      AND parent_block_id IS NOT NULL AND parent_sub_type = 'MESSAGE')
    OR (sub_type = 'TOOL_RESULT' AND block_type = 'OBSERVE'
      AND parent_block_id IS NOT NULL AND parent_sub_type = 'TOOL_CALL')
  ),
  CHECK ((sub_type IN ('TOOL_CALL', 'TOOL_RESULT')) = (call_id IS NOT NULL)),
  CHECK (result_seq IS NULL OR (sub_type = 'TOOL_RESULT' AND result_seq >= 0))
);
CREATE UNIQUE INDEX trace_blocks_call_id
  ON trace_blocks (organization_id, trace_id, call_id) WHERE sub_type = 'TOOL_CALL';
CREATE UNIQUE INDEX trace_blocks_result_seq
  ON trace_blocks (organization_id, trace_id, call_id, result_seq)
  WHERE sub_type = 'TOOL_RESULT' AND result_seq IS NOT NULL;
CREATE INDEX trace_blocks_parent
  ON trace_blocks (organization_id, trace_id, parent_block_id);
CREATE INDEX trace_blocks_trace_seq ON trace_blocks (organization_id, trace_id, seq);
`,
  },
  {
    version: 2,
    name: 'datasets (seed 001): named collections of traces with metadata',
    sql: `
CREATE TABLE datasets (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (organization_id, name)
);

CREATE TABLE dataset_traces (
  dataset_seq INTEGER NOT NULL REFERENCES datasets (seq) ON DELETE CASCADE,
  organization_id INTEGER NOT NULL,
  trace_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  metadata TEXT NOT NULL,
  annotations TEXT NOT NULL,
  PRIMARY KEY (dataset_seq, trace_id),
  UNIQUE (dataset_seq, position),
  FOREIGN KEY (organization_id, trace_id)
    REFERENCES traces (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX dataset_traces_trace ON dataset_traces (organization_id, trace_id);
`,
  },
];
