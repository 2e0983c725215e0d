/**
 * Worker thread of ensureCertificatesForServer (compiled server only): creates what is missing in
 * the data dir and posts the certificates back, so @peculiar/x509 never loads in the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ensureCertificates } from './certs.ts';

const { dataDir } = workerData as { dataDir: string };
ensureCertificates(dataDir).then(
  (certs) => parentPort!.postMessage({ certs }),
  (err: unknown) => parentPort!.postMessage({ error: { message: err instanceof Error ? err.message : String(err), code: (err as { code?: string }).code } }),
);
