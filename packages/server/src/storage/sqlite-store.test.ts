import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdGenerator, defaultBlockLimits } from '@tracewarden/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks } from '../__fixtures__/test-server.js';
import { SqliteStore } from './index.js';

const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-store-'));
let store: SqliteStore;
let organizationId: number;
beforeAll(() => {
  store = SqliteStore.openDataDir(temporary);
  organizationId = store.createOrganization('default').organization.id;
  store.appendBlocks(
    organizationId,
    'tr_1',
    [
      blocks.message('tb_m'),
      blocks.call('tb_c', 'tb_m', 'call_1'),
      blocks.result('tb_r', 'tb_c', 'call_1', 'ok', 0),
    ],
    { blockLimits: defaultBlockLimits, maxTraceBlocks: 100, ids: createIdGenerator() },
  );
});
afterAll(() => {
  store.close();
  rmSync(temporary, { recursive: true, force: true });
});

/** Inserts a row straight into trace_blocks, past core's validation, as a racing writer would. */
function insertRaw(row: {
  id: string;
  sub_type: string;
  block_type: string;
  parent?: string | null;
  parent_sub_type?: string | null;
  call_id?: string | null;
  seq?: number | null;
  trace?: string;
}) {
  store.exec(
    `INSERT INTO trace_blocks (organization_id, trace_id, id, block_type, sub_type, parent_block_id,
       parent_sub_type, call_id, result_seq, created_at, updated_at, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '{}')`,
    organizationId,
    row.trace ?? 'tr_1',
    row.id,
    row.block_type,
    row.sub_type,
    row.parent ?? null,
    row.parent_sub_type ?? null,
    row.call_id ?? null,
    row.seq ?? null,
  );
}

describe('the schema enforces seed 002 invariants by itself', () => {
  it('migrates once: reopening keeps the data and the version', () => {
    const again = new SqliteStore(join(temporary, 'tracewarden.db'));
    expect(again.schemaVersion).toBe(2);
    expect(again.organization('default')?.name).toBe('default');
    again.close();
  });

  it('refuses a duplicate block id, call id and result seq in a trace', () => {
    expect(() => insertRaw({ id: 'tb_m', sub_type: 'MESSAGE', block_type: 'MESSAGE' })).toThrow(
      /UNIQUE constraint failed/,
    );
    expect(() =>
      insertRaw({
        id: 'tb_c2',
        sub_type: 'TOOL_CALL',
        block_type: 'ACT',
        parent: 'tb_m',
        parent_sub_type: 'MESSAGE',
        call_id: 'call_1',
      }),
    ).toThrow(/trace_blocks\.call_id/);
    expect(() =>
      insertRaw({
        id: 'tb_r2',
        sub_type: 'TOOL_RESULT',
        block_type: 'OBSERVE',
        parent: 'tb_c',
        parent_sub_type: 'TOOL_CALL',
        call_id: 'call_1',
        seq: 0,
      }),
    ).toThrow(/trace_blocks\.result_seq/);
    // results without seq never collide
    insertRaw({
      id: 'tb_r3',
      sub_type: 'TOOL_RESULT',
      block_type: 'OBSERVE',
      parent: 'tb_c',
      parent_sub_type: 'TOOL_CALL',
      call_id: 'call_1',
    });
    insertRaw({
      id: 'tb_r4',
      sub_type: 'TOOL_RESULT',
      block_type: 'OBSERVE',
      parent: 'tb_c',
      parent_sub_type: 'TOOL_CALL',
      call_id: 'call_1',
    });
  });

  it('refuses wrong parent sub types, a parent claimed with the wrong sub type, and a parent on a MESSAGE', () => {
    expect(() =>
      insertRaw({
        id: 'tb_t',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_c',
        parent_sub_type: 'TOOL_CALL',
      }),
    ).toThrow(/CHECK constraint failed/);
    // claiming the parent is a MESSAGE when it is a TOOL_CALL breaks the foreign key (at commit)
    expect(() =>
      insertRaw({
        id: 'tb_t2',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_c',
        parent_sub_type: 'MESSAGE',
      }),
    ).toThrow(/FOREIGN KEY constraint failed/);
    expect(() =>
      insertRaw({
        id: 'tb_m2',
        sub_type: 'MESSAGE',
        block_type: 'MESSAGE',
        parent: 'tb_m',
        parent_sub_type: 'MESSAGE',
      }),
    ).toThrow(/CHECK constraint failed/);
    expect(() => insertRaw({ id: 'tb_m3', sub_type: 'MESSAGE', block_type: 'ACT' })).toThrow(
      /CHECK constraint failed/,
    );
  });

  it('refuses orphans and parents in another trace', () => {
    expect(() =>
      insertRaw({
        id: 'tb_o',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_missing',
        parent_sub_type: 'MESSAGE',
      }),
    ).toThrow(/FOREIGN KEY constraint failed/);
    store.appendBlocks(organizationId, 'tr_2', [blocks.message('tb_other')], {
      blockLimits: defaultBlockLimits,
      maxTraceBlocks: 100,
      ids: createIdGenerator(),
    });
    expect(() =>
      insertRaw({
        id: 'tb_x',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_m',
        parent_sub_type: 'MESSAGE',
        trace: 'tr_2',
      }),
    ).toThrow(/FOREIGN KEY constraint failed/);
  });

  it('keeps API keys only as hashes, and revokes them', () => {
    const created = store.createApiKey('default', { name: 'ci' });
    expect(store.authenticate(created.key)?.name).toBe('default');
    expect(store.listApiKeys('default').map((key) => key.id)).toContain(created.id);
    expect(JSON.stringify(store.listApiKeys())).not.toContain(created.key.slice(-43));
    expect(store.revokeApiKey(created.key)).toBe(true);
    expect(store.revokeApiKey(created.id)).toBe(false);
    expect(store.authenticate(created.key)).toBeUndefined();
    expect(() => store.createApiKey('nobody')).toThrow(/does not exist/);
  });
});
