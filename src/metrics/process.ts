/**
 * client_golang's process collector (process_* metrics), read at scrape time from Node and, on
 * Linux, /proc. Figures /proc cannot give (another OS) are left out rather than invented. No go_*
 * metrics: this process has no Go runtime to describe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsRegistry, Sample } from './registry.ts';

/** Go's float64(math.MaxUint64): what the collector reports for an unlimited soft limit. */
const UNLIMITED = 18446744073709551615;

/** When this process started, in seconds since the epoch (the `Process-Start-Time-Unix` header takes its integer part). */
export const processStartTimeSeconds = Math.round((Date.now() / 1000 - process.uptime()) * 100) / 100;

function one(value: number | undefined): readonly Sample[] {
  return value === undefined || !Number.isFinite(value) ? [] : [{ value }];
}

/** A soft limit from /proc/self/limits (`Max open files`), or undefined when unreadable. */
function softLimit(name: string): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith(name));
    const soft = line?.slice(name.length).trim().split(/\s+/)[0];
    if (soft === undefined) return undefined;
    return soft === 'unlimited' ? UNLIMITED : Number(soft);
  } catch {
    return undefined;
  }
}

/** Field 23 of /proc/self/stat (vsize, bytes); the command name in field 2 may hold spaces. */
function virtualMemoryBytes(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[20]);
  } catch {
    return undefined;
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

/** Registers the process_* families (names and help texts as client_golang's). */
export function registerProcessMetrics(registry: MetricsRegistry): void {
  const family = (name: string, help: string, type: 'counter' | 'gauge', read: () => number | undefined) =>
    registry.collector({ name, help, type, stability: '', collect: () => one(read()) });
  family('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', 'counter', () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  });
  family('process_max_fds', 'Maximum number of open file descriptors.', 'gauge', () => softLimit('Max open files'));
  family('process_open_fds', 'Number of open file descriptors.', 'gauge', openFds);
  family('process_resident_memory_bytes', 'Resident memory size in bytes.', 'gauge', () => process.memoryUsage.rss());
  family('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', 'gauge', () => processStartTimeSeconds);
  family('process_virtual_memory_bytes', 'Virtual memory size in bytes.', 'gauge', virtualMemoryBytes);
  family('process_virtual_memory_max_bytes', 'Maximum amount of virtual memory available in bytes.', 'gauge', () => softLimit('Max address space'));
}

/**
 * Node.js runtime figures (prom-client's default names; kube has go_* here instead): heap, event
 * loop delay (sampled by a histogram timer), active handles, and the runtime version.
 */
export function registerNodeRuntimeMetrics(registry: MetricsRegistry): { stop(): void } {
  const family = (name: string, help: string, read: () => readonly Sample[]) => registry.collector({ name, help, type: 'gauge', stability: '', collect: read });
  family('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.', () => one(process.memoryUsage().heapTotal));
  family('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', () => one(process.memoryUsage().heapUsed));
  family('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', () => one(process.memoryUsage().external));
  family('nodejs_version_info', 'Node.js version info.', () => [{ labels: { version: process.version, major: String(process.versions.node.split('.')[0]) }, value: 1 }]);
  // The delay histogram samples every 20 ms; its figures are reset at every scrape (prom-client's behaviour).
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
  family('nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.', () => one(seconds(delay.mean)));
  family('nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the recorded event loop delays.', () => {
    const v = seconds(delay.percentile(99));
    delay.reset();
    return one(v);
  });
  return { stop: () => delay.disable() };
}
