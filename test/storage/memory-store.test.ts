import { MemoryStore } from '../../src/storage/memory-store.ts';
import { storeContract } from './store-contract.ts';

storeContract('memory', async () => new MemoryStore({ tooLargeWaitMs: 200, historyMs: false }));
