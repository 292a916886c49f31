import { createIdGenerator, defaultBlockLimits } from '@tracewarden/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { blocks } from '../__fixtures__/test-server.js';
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
  testDatabaseUrl,
} from '../__fixtures__/test-stores.js';
import { PostgresStore } from './index.js';

describePostgres('the Postgres schema enforces seed 002 invariants by itself', () => {
  let database: TestDatabase;
  let store: PostgresStore;
  let organizationId: number;
  beforeAll(async () => {
    if (testDatabaseUrl === undefined) return;
    database = await createTestDatabase();
    // two processes starting together on an empty database: the migrations run once
    const [first, second] = await Promise.all([
      PostgresStore.open({ connectionString: database.url }),
      PostgresStore.open({ connectionString: database.url }),
    ]);
    await second.close();
    store = first;
    organizationId = (await store.createOrganization('default')).organization.id;
    await store.appendBlocks(
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
  afterAll(async () => {
    await store?.close();
    await database?.drop();
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
    return store.exec(
      `INSERT INTO trace_blocks (organization_id, trace_id, id, block_type, sub_type, parent_block_id,
         parent_sub_type, call_id, result_seq, created_at, updated_at, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '{}')`,
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

  it('migrates once and keeps the version on reopening', async () => {
    expect(await store.schemaVersion()).toBe(2);
    const again = await PostgresStore.open({ connectionString: database.url });
    expect(await again.schemaVersion()).toBe(2);
    expect((await again.organization('default'))?.name).toBe('default');
    await again.close();
  });

  it("refuses a duplicate block id, call id and result seq, as the seed's codes", async () => {
    await expect(
      insertRaw({ id: 'tb_m', sub_type: 'MESSAGE', block_type: 'MESSAGE' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(
      insertRaw({
        id: 'tb_c2',
        sub_type: 'TOOL_CALL',
        block_type: 'ACT',
        parent: 'tb_m',
        parent_sub_type: 'MESSAGE',
        call_id: 'call_1',
      }),
    ).rejects.toMatchObject({ code: 'DUPLICATE_CALL_ID' });
    await expect(
      insertRaw({
        id: 'tb_r2',
        sub_type: 'TOOL_RESULT',
        block_type: 'OBSERVE',
        parent: 'tb_c',
        parent_sub_type: 'TOOL_CALL',
        call_id: 'call_1',
        seq: 0,
      }),
    ).rejects.toMatchObject({ code: 'DUPLICATE_RESULT_SEQ' });
    // results without seq never collide
    for (const id of ['tb_r3', 'tb_r4']) {
      await insertRaw({
        id,
        sub_type: 'TOOL_RESULT',
        block_type: 'OBSERVE',
        parent: 'tb_c',
        parent_sub_type: 'TOOL_CALL',
        call_id: 'call_1',
      });
    }
  });

  it('refuses wrong parent sub types, orphans and parents in another trace', async () => {
    const refused = [
      {
        id: 'tb_t',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_c',
        parent_sub_type: 'TOOL_CALL',
      },
      // claims its parent is a MESSAGE, but tb_c is a TOOL_CALL: the foreign key says no
      {
        id: 'tb_t2',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_c',
        parent_sub_type: 'MESSAGE',
      },
      {
        id: 'tb_m2',
        sub_type: 'MESSAGE',
        block_type: 'MESSAGE',
        parent: 'tb_m',
        parent_sub_type: 'MESSAGE',
      },
      { id: 'tb_m3', sub_type: 'MESSAGE', block_type: 'ACT' },
      {
        id: 'tb_o',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_missing',
        parent_sub_type: 'MESSAGE',
      },
    ];
    for (const row of refused) {
      await expect(insertRaw(row), row.id).rejects.toMatchObject({ code: 'VALIDATION' });
    }
    await store.appendBlocks(organizationId, 'tr_2', [blocks.message('tb_other')], {
      blockLimits: defaultBlockLimits,
      maxTraceBlocks: 100,
      ids: createIdGenerator(),
    });
    await expect(
      insertRaw({
        id: 'tb_x',
        sub_type: 'THINK',
        block_type: 'ACT',
        parent: 'tb_m',
        parent_sub_type: 'MESSAGE',
        trace: 'tr_2',
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('refuses to delete a block that still has children (a whole trace goes at once)', async () => {
    await expect(
      store.exec(
        "DELETE FROM trace_blocks WHERE organization_id = $1 AND trace_id = 'tr_1' AND id = 'tb_m'",
        organizationId,
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await store.deleteTrace(organizationId, 'tr_2')).toBe(true);
  });

  it('keeps API keys only as hashes, and revokes them', async () => {
    const created = await store.createApiKey('default', { name: 'ci' });
    expect((await store.authenticate(created.key))?.name).toBe('default');
    expect((await store.listApiKeys('default')).map((key) => key.id)).toContain(created.id);
    expect(JSON.stringify(await store.listApiKeys())).not.toContain(created.key.slice(-43));
    expect(await store.revokeApiKey(created.key)).toBe(true);
    expect(await store.revokeApiKey(created.id)).toBe(false);
    expect(await store.authenticate(created.key)).toBeUndefined();
    await expect(store.createApiKey('nobody')).rejects.toThrow(/does not exist/);
  });
});
