// Entry of the sqlite writer thread when running from source (tests, tsx): registers the
// TypeScript loader in this thread, then loads the writer (workers do not inherit the loader).
import { register } from 'tsx/esm/api';

register();
await import('./sqlite-writer-worker.ts');
