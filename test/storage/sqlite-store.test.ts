import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteStore } from '../../src/storage/sqlite-store.ts';
import { storeContract } from './store-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-store-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeContract('sqlite', async () => SqliteStore.open(join(dir, `db-${n++}.sqlite`), { tooLargeWaitMs: 200, historyMs: false }));
