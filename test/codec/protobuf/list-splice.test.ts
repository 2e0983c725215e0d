/**
 * Lists spliced from memoized item messages (encodeProtobufListOfMessages) are byte for byte the
 * lists the message encoder writes, for every length class of varint the splice computes.
 */
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufItemMessage, encodeProtobufList, encodeProtobufListOfMessages, encodeProtobufObject, encodeProtobufWatchEventMessage } from '../../../src/codec/protobuf/index.ts';
import { encodeMessageBytes } from '../../../src/codec/protobuf/message-encode.ts';

function configMap(i: number, valueBytes: number): Record<string, unknown> {
  return {
    metadata: { name: `cm-${i}`, namespace: 'ns', resourceVersion: String(i + 1), creationTimestamp: '2026-01-02T03:04:05Z', labels: { i: String(i) } },
    data: { v: 'x'.repeat(valueBytes) },
  };
}

describe('protobuf lists spliced from item messages', () => {
  const cases: Array<[string, Record<string, unknown>[], Record<string, unknown>]> = [
    ['empty', [], { resourceVersion: '7' }],
    ['small items (one-byte lengths)', [configMap(1, 1), configMap(2, 3)], { resourceVersion: '9' }],
    ['items over 127 and 16,383 bytes (two- and three-byte lengths)', [configMap(1, 200), configMap(2, 20_000), configMap(3, 0)], { resourceVersion: '10', continue: 'abc', remainingItemCount: 4 }],
    ['a list over 2 MiB (four-byte length)', Array.from({ length: 40 }, (_, i) => configMap(i, 60_000)), { resourceVersion: '11' }],
  ];
  for (const [name, items, listMeta] of cases) {
    it(name, () => {
      const expected = Buffer.from(encodeProtobufList('ConfigMapList', 'v1', listMeta, items));
      const spliced = Buffer.from(encodeProtobufListOfMessages('ConfigMapList', 'v1', listMeta, items.map((o) => encodeProtobufItemMessage('v1', 'ConfigMap', o))));
      expect(spliced.equals(expected)).toBe(true);
      const decoded = decodeProtobufObject(spliced).object as { items?: unknown[]; metadata: Record<string, unknown> };
      expect(decoded.items ?? []).toHaveLength(items.length);
      expect(decoded.metadata.resourceVersion).toBe(listMeta.resourceVersion);
    });
  }

  it('refuses a kind without a protobuf encoding as the encoder does', () => {
    expect(() => encodeProtobufListOfMessages('NopeList', 'v1', {}, [])).toThrow(/no protobuf encoding/);
  });

  it('watch events are written around the object bytes exactly as the message encoder writes them', () => {
    for (const size of [0, 100, 20_000]) {
      const obj = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', ...configMap(1, size) });
      const spliced = Buffer.from(encodeProtobufWatchEventMessage('MODIFIED', obj));
      const expected = Buffer.from(encodeMessageBytes({ type: 'MODIFIED', object: { raw: Buffer.from(obj).toString('base64') } }, 'WatchEvent'));
      expect(spliced.equals(expected)).toBe(true);
      expect(decodeProtobufWatchEvent(spliced).object.object.metadata).toMatchObject({ name: 'cm-1' });
    }
  });
});
