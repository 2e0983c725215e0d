/**
 * Which requests are long-running: kube-apiserver builds its check with
 * BasicLongRunningRequestCheck(verbs {watch, proxy}, subresources {attach, exec, proxy, log,
 * portforward}), and for non-resource requests anything below /debug/pprof/. The in-flight
 * limits leave such requests out, and API Priority and Fairness does not hold a seat for them
 * (a watch only until its initial events are written), so an exec session or a streamed log
 * does not keep a slot for its whole life.
 */
import type { RequestInfo } from './request-info.ts';

const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo | undefined): boolean {
  if (info === undefined) return false;
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  if (info.isResourceRequest) return LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}
