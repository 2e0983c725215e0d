/**
 * The vitest lifecycle around sample-fixture.ts (kept apart so that benchmarks can import the
 * fixture without vitest).
 */
import { afterAll, beforeAll } from 'vitest';
import { startAggregatedSetup, type AggregatedSetup, type AggregatedSetupOptions } from './sample-fixture.ts';

/**
 * The lifecycle of a test file that works against the registered sample: before all, the setup
 * started, the sample running and its APIService Available (`use` receives the setup); after all,
 * everything stopped.
 */
export function withRegisteredSample(use: (setup: AggregatedSetup) => void, opts: AggregatedSetupOptions = {}): void {
  let setup: AggregatedSetup | undefined;
  beforeAll(async () => {
    setup = await startAggregatedSetup(opts);
    use(setup);
    await setup.startSample();
    await setup.register();
  }, 180_000);
  afterAll(async () => {
    await setup?.close();
  });
}
