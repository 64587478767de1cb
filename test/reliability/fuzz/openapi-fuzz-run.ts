import test from 'ava';
import { createFuzzWorld, type FuzzWorld } from './fuzz-world.ts';
import { fuzzSeed, SeededRandom } from './seeded-random.ts';
import { SchemaSampler } from './schema-sampler.ts';
import { operationsOf, RequestBuilder, type FuzzRequest } from './request-builder.ts';
import { countDifferences, listTables, tableCounter, type TableCounts } from './table-counts.ts';
import { errorShapeProblem } from './error-shape.ts';

// Issue 16, "Fuzzing from the OpenAPI document". FUZZ_SEED reproduces a run; FUZZ_REQUESTS
// changes its size (CI: the default). The operations are dealt into PARTS test files
// (openapi-fuzz-1-of-3.test.ts …), each with its own app and world, so the 10,000 requests
// run as three processes side by side instead of one 50-second file; every operation still
// gets REQUESTS / operations requests, and together the parts cover the whole document.
const SEED = fuzzSeed();
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
export const PARTS = 3;
const PER_REQUEST_TIMEOUT_MS = 20_000;
const WINDOW = 40;
const CONCURRENT = 4;

/** Declares part `part` (1-based) of the fuzz: the operations at positions part-1, part-1+PARTS, … of the document. */
export function fuzzPart(part: number): void {
  let world: FuzzWorld;
  test.before(async () => {
    world = await createFuzzWorld();
  });
  test.after.always(async () => {
    await world?.app.close();
  });

  test('the database engine is the one the test runs on (the dialect is read from the client)', async (t) => {
    const health = await world.app.request('GET', '/api/health', { token: null });
    t.is(health.body.data.database.engine, world.app.database.engine);
  });

  test(`operations ${part} of every ${PARTS} of /api/openapi.json, about ${Math.round(REQUESTS / PARTS)} hostile requests (seed ${SEED}): no 5xx, one error shape, rejected requests write no row`, async (t) => {
    t.log(`FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS} part ${part}/${PARTS} (${world.app.database.engine})`);
    const rng = new SeededRandom(SEED);
    const docRes = await world.app.request('GET', '/api/openapi.json', { token: null });
    t.is(docRes.statusCode, 200);
    const allOperations = operationsOf(docRes.body);
    t.true(allOperations.length > 90, `only ${allOperations.length} operations in the document`);
    for (const must of ['POST /api/actions', 'POST /api/actions/definitions', 'POST /api/playbooks', 'POST /api/playbooks/import', 'POST /api/actions/{id}/trigger', 'POST /api/playbooks/{id}/run']) {
      t.true(allOperations.some((o) => `${o.method} ${o.path}` === must), `${must} is in the document`);
    }
    const operations = allOperations.filter((_, i) => i % PARTS === part - 1);
    const requests = Math.round((REQUESTS * operations.length) / allOperations.length);
    const sampler = new SchemaSampler(docRes.body, rng, (prefix, owner) => {
      const pool = world.ids(prefix, owner);
      return pool.length ? rng.pick(pool) : undefined;
    });
    const builder = new RequestBuilder(rng, sampler, world);
    const knex = world.app.ctx.db;
    const tables = await listTables(knex, world.app.database.engine);
    t.true(tables.length > 20, `tables: ${tables.join(', ')}`);
    const counts = tableCounter(knex, world.app.database.engine, tables);

    const failures: string[] = [];
    const statusByOperation = new Map<string, Map<number, number>>();
    let checkedRejected = 0;
    let injectMs = 0;
    let countMs = 0;
    const started = performance.now();
    // Round-robin over a shuffled order: every operation gets the same share of requests.
    const order = operations.map((o) => ({ o, k: rng.next() })).sort((x, y) => x.k - y.k).map((x) => x.o);

    const judge = (i: number, req: FuzzRequest, res: { statusCode: number; payload: string; headers: Record<string, unknown> }, extra: string[] = []) => {
      const name = `${req.method} ${req.operation}`;
      const tally = statusByOperation.get(name) ?? new Map<number, number>();
      tally.set(res.statusCode, (tally.get(res.statusCode) ?? 0) + 1);
      statusByOperation.set(name, tally);
      const problems = [...extra];
      if (res.statusCode >= 500) problems.push(`status ${res.statusCode}`);
      if (res.statusCode >= 400) {
        const shape = errorShapeProblem(res.payload, String(res.headers['content-type'] ?? ''));
        if (shape) problems.push(`error shape: ${shape}`);
      }
      if (problems.length) failures.push(`#${i} ${describe(req)} → ${res.statusCode} ${res.payload.slice(0, 300)} :: ${problems.join(', ')}`);
    };

    // Windows of requests: most are sent CONCURRENT at a time (they may succeed and write, so
    // they are not counted); the sampled rest go one by one with every table counted around
    // each, so a rejected one (4xx) is seen writing any row. Mutating methods are sampled more.
    for (let i = 0; i < requests && failures.length < 25; i += WINDOW) {
      const window: Array<{ i: number; req: FuzzRequest; counted: boolean }> = [];
      for (let j = i; j < Math.min(i + WINDOW, requests); j += 1) {
        const operation = order[j % order.length];
        const req = await builder.build(operation);
        window.push({ i: j, req, counted: rng.chance(operation.method === 'GET' ? 0.15 : 0.6) });
      }
      const free = window.filter((w) => !w.counted);
      const sent = performance.now();
      for (let k = 0; k < free.length; k += CONCURRENT) {
        await Promise.all(free.slice(k, k + CONCURRENT).map(async (w) => judge(w.i, w.req, await inject(world, w.req))));
      }
      injectMs += performance.now() - sent;
      let before: TableCounts | null = null;
      for (const w of window.filter((x) => x.counted)) {
        const counted = performance.now();
        before ??= await counts();
        countMs += performance.now() - counted;
        const t1 = performance.now();
        const res = await inject(world, w.req);
        injectMs += performance.now() - t1;
        const t2 = performance.now();
        const after = await counts();
        countMs += performance.now() - t2;
        const extra: string[] = [];
        if (res.statusCode >= 400 && res.statusCode < 500) {
          checkedRejected += 1;
          const diff = countDifferences(before, after);
          if (diff.length) extra.push(`a rejected request wrote rows: ${diff.join('; ')}`);
        }
        before = after;
        judge(w.i, w.req, res, extra);
      }
    }

    const classes = new Map<string, number>();
    for (const tally of statusByOperation.values()) for (const [status, n] of tally) classes.set(`${Math.floor(status / 100)}xx`, (classes.get(`${Math.floor(status / 100)}xx`) ?? 0) + n);
    t.log(`time: ${Math.round(performance.now() - started)} ms, of which requests ${Math.round(injectMs)} ms, row counts ${Math.round(countMs)} ms`);
    t.log(`${operations.length} of ${allOperations.length} operations, ${requests} requests; statuses ${JSON.stringify(Object.fromEntries(classes))}; ${checkedRejected} rejected requests checked against ${tables.length} table counts`);
    const never2xx = [...statusByOperation].filter(([, tally]) => ![...tally.keys()].some((s) => s < 300)).map(([n]) => n);
    t.log(`operations never answered 2xx in this run: ${never2xx.length} (${never2xx.join(', ')})`);
    t.deepEqual(failures, [], `seed ${SEED}: reproduce with FUZZ_SEED=${SEED}`);
    // The run kept its footing: the tokens it acts with still work (a fuzzed request revoking them would hollow out the rest).
    for (const token of [world.token, world.app.adminToken]) t.is((await world.app.request('GET', '/api/user/me', { token })).statusCode, 200, 'a world token was revoked during the run');
    t.is((await world.app.request('POST', '/api/agent/jobs/claim', { token: world.agentToken, payload: { wait_seconds: 0 } })).statusCode, 204, 'the agent token was revoked during the run');
    t.is(statusByOperation.size, operations.length, 'every operation of this part was sent requests');
    t.true(checkedRejected > requests / 10, `${checkedRejected} rejected requests were compared`);
  });
}

async function inject(w: FuzzWorld, req: FuzzRequest) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PER_REQUEST_TIMEOUT_MS} ms: ${describe(req)}`)), PER_REQUEST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([w.app.server.inject({ method: req.method, url: req.url, headers: req.headers, payload: req.payload }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(req: FuzzRequest): string {
  const body = req.payload === undefined ? '' : ` body(${req.headers['content-type'] ?? 'no content-type'}, ${req.payload.length} chars)=${JSON.stringify(req.payload.slice(0, 200))}`;
  return `${req.method} ${req.url.slice(0, 300)} [${req.kind}]${body}`;
}
