import { afterAll, beforeAll, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';

interface Listing {
  next_cursor: string | null;
  [key: string]: unknown;
}

/** A cursor pages through the listing it came from, and is refused anywhere else. */
describeStores('pagination cursors', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ store: kind });
    // trace A's blocks are stored before trace B's: a position in A would skip B's blocks
    await t.post('tr_a', [
      blocks.message('tb_a1'),
      blocks.message('tb_a2'),
      blocks.message('tb_a3'),
    ]);
    await t.post('tr_b', [
      blocks.message('tb_b1'),
      blocks.message('tb_b2'),
      blocks.message('tb_b3'),
    ]);
    for (const name of ['ds1', 'ds2', 'ds3']) {
      await t.request('/v1/organizations/default/datasets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    }
  });
  afterAll(() => t.stop());

  const list = async (path: string) => {
    const response = await t.request(`/v1/organizations/default${path}`);
    return { status: response.status, body: (await response.json()) as Listing };
  };
  const blockIds = (body: Listing) => (body.blocks as { id: string }[]).map((block) => block.id);

  it('pages through one trace with its own cursors', async () => {
    const first = await list('/traces/tr_b/blocks?limit=2');
    expect(blockIds(first.body)).toEqual(['tb_b1', 'tb_b2']);
    const second = await list(`/traces/tr_b/blocks?limit=2&cursor=${first.body.next_cursor}`);
    expect(blockIds(second.body)).toEqual(['tb_b3']);
    expect(second.body.next_cursor).toBeNull();
  });

  it("refuses another trace's block cursor (400 INVALID_REQUEST on cursor), not a silently wrong page", async () => {
    const fromA = (await list('/traces/tr_a/blocks?limit=1')).body.next_cursor as string;
    const onB = await list(`/traces/tr_b/blocks?limit=2&cursor=${fromA}`);
    expect(onB.status).toBe(400);
    expect(onB.body).toMatchObject({
      error: { code: 'INVALID_REQUEST', http_status: 400, details: { field: 'cursor' } },
    });
    expect((onB.body.error as { message: string }).message).toMatch(
      /made for another listing, not the blocks of trace "tr_b"/,
    );
  });

  it('refuses a cursor of the traces listing on the datasets listing, and the other way', async () => {
    const traces = (await list('/traces?limit=1')).body.next_cursor as string;
    const datasets = (await list('/datasets?limit=1')).body.next_cursor as string;
    expect((await list(`/datasets?cursor=${traces}`)).status).toBe(400);
    expect((await list(`/traces?cursor=${datasets}`)).status).toBe(400);
    expect((await list(`/traces/tr_a/blocks?cursor=${traces}`)).status).toBe(400);
    // each on its own listing goes on
    expect((await list(`/traces?cursor=${traces}`)).status).toBe(200);
    expect((await list(`/datasets?cursor=${datasets}`)).status).toBe(200);
  });

  it('refuses a bare position (no listing named) as a cursor', async () => {
    const bare = Buffer.from('1').toString('base64url');
    const response = await list(`/traces/tr_b/blocks?cursor=${bare}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { details: { field: 'cursor' } } });
  });
});
