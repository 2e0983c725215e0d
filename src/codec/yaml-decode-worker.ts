/**
 * Worker side of off-thread YAML decoding: decodes one body per message and answers with the
 * result or the ApiError's Status, so a large YAML body never holds the server's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { decodeYaml } from './yaml-decode.ts';
import { isApiError } from '../api/status-errors.ts';

interface Job {
  readonly id: number;
  readonly body: Uint8Array;
  readonly expectedKind?: string;
  readonly applyPatch?: boolean;
}

parentPort?.on('message', (job: Job) => {
  try {
    const result = decodeYaml(job.body, { expectedKind: job.expectedKind, applyPatch: job.applyPatch });
    parentPort!.postMessage({ id: job.id, ok: true, result });
  } catch (err) {
    const status = isApiError(err) ? err.toStatus() : undefined;
    parentPort!.postMessage({ id: job.id, ok: false, status, message: err instanceof Error ? err.message : String(err) });
  }
});
