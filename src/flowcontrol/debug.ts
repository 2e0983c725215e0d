/**
 * kube's /debug/api_priority_and_fairness/ dumps (apf_controller_debug.go): comma-separated
 * tables aligned as Go's tabwriter aligns them (each column as wide as its widest cell plus one
 * space; the last column unpadded).
 */
import type { FlowControl } from './controller.ts';

export const APF_DEBUG_PREFIX = '/debug/api_priority_and_fairness/';

function tabular(rows: readonly (readonly (string | number | boolean)[])[]): string {
  const cells = rows.map((r) => r.map((c, i) => (i < r.length - 1 ? `${c},` : String(c))));
  const widths: number[] = [];
  for (const r of cells) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length + 1)));
  return cells.map((r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('')).join('\n') + '\n';
}

/** Go's SeatSeconds String(): `%.8fss`. */
const seatSeconds = (v: number) => `${v.toFixed(8)}ss`;

export function dumpPriorityLevels(fc: FlowControl): string {
  const rows: (string | number | boolean)[][] = [
    ['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests'],
  ];
  for (const l of fc.priorityLevels) {
    const qs = l.queueSet;
    if (l.exempt) rows.push([l.name, 0, l.exemptExecuting === 0, false, 0, l.exemptExecuting, l.exemptDispatched, 0, 0, 0]);
    else rows.push([l.name, qs.activeQueues, qs.executing === 0 && qs.waiting === 0, false, qs.waiting, qs.executing, qs.counters.dispatched, qs.counters.rejected, qs.counters.timedOut, qs.counters.cancelled]);
  }
  return tabular(rows);
}

export function dumpQueues(fc: FlowControl): string {
  const rows: (string | number)[][] = [['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum']];
  for (const l of fc.priorityLevels) {
    if (l.exempt) continue;
    for (const q of l.queueSet.queueRows()) {
      rows.push([l.name, q.index, q.pending, q.executing, q.seatsInUse, seatSeconds(q.nextDispatchR), q.initialSeatsSum, q.maxSeatsSum, seatSeconds(q.totalWorkSum)]);
    }
  }
  return tabular(rows);
}

export function dumpRequests(fc: FlowControl): string {
  const rows: (string | number)[][] = [['PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency', 'StartTime']];
  const origin = Date.now() - performance.now();
  for (const l of fc.priorityLevels) {
    for (const w of l.queueSet.waitingRows()) {
      const at = new Date(origin + w.arrivedMs).toISOString();
      const { initialSeats, finalSeats, additionalLatencyMs } = w.estimate;
      // Go's Duration text: 0s, 5ms, 7.5ms.
      rows.push([l.name, w.flowSchema, w.queueIndex, w.indexInQueue, w.distinguisher, at, initialSeats, finalSeats, additionalLatencyMs === 0 ? '0s' : `${additionalLatencyMs}ms`, '']);
    }
  }
  return tabular(rows);
}

/** The dump a path names, as text; undefined for other paths. */
export function apfDebugDocument(fc: FlowControl, path: string): string | undefined {
  switch (path) {
    case `${APF_DEBUG_PREFIX}dump_priority_levels`:
      return dumpPriorityLevels(fc);
    case `${APF_DEBUG_PREFIX}dump_queues`:
      return dumpQueues(fc);
    case `${APF_DEBUG_PREFIX}dump_requests`:
      return dumpRequests(fc);
    default:
      return undefined;
  }
}
