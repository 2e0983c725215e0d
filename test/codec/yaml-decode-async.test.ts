import { describe, expect, it } from 'vitest';
import { decodeYamlAsync, OFF_THREAD_YAML_BYTES } from '../../src/codec/yaml-decode-async.ts';
import { decodeYaml } from '../../src/codec/yaml-decode.ts';

const bigConfigMap = (extra = '') => {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: big', 'data:'];
  for (let i = 0; lines.join('\n').length < OFF_THREAD_YAML_BYTES * 2; i++) lines.push(`  key${i}: "${'v'.repeat(40)}"`);
  return lines.join('\n') + extra + '\n';
};

describe('off-thread YAML decoding', () => {
  it('gives the same value and duplicate reports as the inline decoder for large bodies', async () => {
    const text = bigConfigMap('\n  key0: again');
    const body = Buffer.from(text);
    expect(body.length).toBeGreaterThan(OFF_THREAD_YAML_BYTES);
    const off = await decodeYamlAsync(body, { expectedKind: 'ConfigMap' });
    const inline = decodeYaml(body, { expectedKind: 'ConfigMap' });
    expect(off).toEqual(inline);
    expect(off.strictErrors.some((m) => m.includes('key "key0" already set in map'))).toBe(true);
  });

  it('rejects a large bad body with the same 400 Status', async () => {
    const body = Buffer.from(bigConfigMap('\n  bad: [unclosed'));
    let inlineErr: any;
    try {
      decodeYaml(body);
    } catch (e) {
      inlineErr = e;
    }
    await expect(decodeYamlAsync(body)).rejects.toMatchObject({ code: 400, reason: inlineErr.reason, message: inlineErr.message });
  });

  it('decodes several large bodies at once', async () => {
    const results = await Promise.all([0, 1, 2].map(() => decodeYamlAsync(Buffer.from(bigConfigMap())))); 
    expect(results.every((r) => (r.value as any).metadata.name === 'big')).toBe(true);
  });
});
