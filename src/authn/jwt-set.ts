/**
 * The JWT authenticators of the server as one token step whose set can be swapped: built from
 * the `--oidc-*` flags or from `--authentication-config`, and in the latter case rebuilt when the
 * file changes. A file that fails to read or validate on reload keeps the last good set and is
 * reported (log, and the reload status kept for /metrics), as kube-apiserver does.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseAuthenticationConfig, type AuthenticationConfig, type ValidationContext } from './authentication-config.ts';
import { createJwtAuthenticator, type JwtAuthenticator, type JwtAuthenticatorOptions, type JwtAuthenticatorSpec } from './jwt-authenticator.ts';
import type { AuthnOutcome, TokenAuthenticator, TokenContext } from './types.ts';

export interface JwtSet extends TokenAuthenticator {
  /** Replaces the authenticators (closing the old ones). */
  replace(specs: readonly JwtAuthenticatorSpec[]): void;
  /** Resolves when every current authenticator has fetched its keys once (rejects on the first failure). */
  ready(): Promise<void>;
  close(): void;
}

export function createJwtSet(specs: readonly JwtAuthenticatorSpec[], opts: JwtAuthenticatorOptions): JwtSet {
  let current: JwtAuthenticator[] = specs.map((s) => createJwtAuthenticator(s, opts));
  return {
    name: 'oidc',
    async authenticateToken(token: string, context?: TokenContext): Promise<AuthnOutcome> {
      // Issuers are unique, so at most one authenticator claims a token; the others answer at once.
      for (const a of current) {
        const outcome = await a.authenticateToken(token, context);
        if (outcome.kind !== 'no-credentials') return outcome;
      }
      return { kind: 'no-credentials' };
    },
    replace(next) {
      const old = current;
      current = next.map((s) => createJwtAuthenticator(s, opts));
      for (const a of old) a.close();
    },
    async ready() {
      await Promise.all(current.map((a) => a.ready()));
    },
    close() {
      for (const a of current) a.close();
      current = [];
    },
  };
}

/** The state of the configuration file reloads (kube's automatic reload metrics). */
export interface ReloadStatus {
  /** Unix seconds of the last reload attempt, 0 before the first. */
  lastReloadTimestampSeconds: number;
  lastReloadSucceeded: boolean;
  lastError?: string;
  /** SHA-less identity of the loaded text (kube reports a hash; the text is enough to compare). */
  loadedText: string;
}

export interface ConfigFileWatcher {
  readonly status: ReloadStatus;
  /** Checks the file now (the poller calls it; tests may too). */
  check(): Promise<void>;
  close(): void;
}

/**
 * Watches `path` (change notifications on its directory, so a file replaced by rename is seen, and
 * a poll every `intervalMs` in case notifications are lost) and, when its text changed, validates
 * it and hands the result to `apply`. Invalid text keeps what was applied before.
 */
export function watchAuthenticationConfig(
  path: string,
  initialText: string,
  ctx: ValidationContext,
  apply: (config: AuthenticationConfig) => void,
  opts: { readonly intervalMs?: number; readonly log?: (message: string) => void; readonly onReload?: (status: 'success' | 'failure') => void } = {},
): ConfigFileWatcher {
  const log = opts.log ?? (() => {});
  const status: ReloadStatus = { lastReloadTimestampSeconds: 0, lastReloadSucceeded: true, loadedText: initialText };
  let lastMtime = 0;
  let running: Promise<void> | undefined;
  const check = async (): Promise<void> => {
    try {
      const s = await stat(path);
      if (s.mtimeMs === lastMtime) return;
      lastMtime = s.mtimeMs;
      const text = await readFile(path, 'utf8');
      if (text === status.loadedText) return;
      status.lastReloadTimestampSeconds = Math.floor(Date.now() / 1000);
      try {
        const config = parseAuthenticationConfig(text, ctx);
        apply(config);
        status.loadedText = text;
        status.lastReloadSucceeded = true;
        delete status.lastError;
        log(`authentication config ${path} reloaded`);
        opts.onReload?.('success');
      } catch (err) {
        status.lastReloadSucceeded = false;
        status.lastError = (err as Error).message;
        log(`authentication config ${path} not reloaded, keeping the last good one: ${(err as Error).message}`);
        opts.onReload?.('failure');
      }
    } catch (err) {
      // A file being replaced may be missing for a moment: try again at the next tick.
      log(`authentication config ${path}: ${(err as Error).message}`);
    }
  };
  const tick = () => {
    running ??= check().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, opts.intervalMs ?? 10_000);
  timer.unref();
  let notifier: FSWatcher | undefined;
  try {
    notifier = watch(dirname(path), { persistent: false }, () => tick());
    notifier.on('error', () => notifier?.close());
  } catch {
    // No notifications on this file system: the poll alone reloads.
  }
  return {
    status,
    check,
    close: () => {
      clearInterval(timer);
      notifier?.close();
    },
  };
}
