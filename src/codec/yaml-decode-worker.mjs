// Entry of the YAML decoding worker: registers the TypeScript loader in this thread, then loads
// the decoder (worker threads do not inherit the loader the main thread was started with).
import { register } from 'tsx/esm/api';

register();
await import('./yaml-decode-worker.ts');
