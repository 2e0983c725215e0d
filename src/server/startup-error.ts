/**
 * A start that cannot succeed for a reason the user can fix (port in use, data dir, etcd).
 * The message is one line saying what is wrong and what to do; the executable prints it as
 * `Error: <message>` and exits 1, without a stack trace.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
