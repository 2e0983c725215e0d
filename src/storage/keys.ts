/** Key-range helpers shared by the backends: prefix ranges and binary search over sorted keys. */

/** The smallest string greater than every string starting with `prefix` ('' means no upper bound). */
export function prefixEnd(prefix: string): string {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code < 0xffff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
  }
  return '';
}

/** Index of the first element of sorted `keys` that is >= `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where a list under `prefix` starts: at `startKey` when it lies under the prefix and after it. */
export function listStart(prefix: string, startKey: string | undefined): string {
  return startKey !== undefined && startKey > prefix ? startKey : prefix;
}
