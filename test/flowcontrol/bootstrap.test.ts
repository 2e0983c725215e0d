/**
 * The bootstrap configuration kept current across restarts (kube's config producer): missing
 * objects are created again, objects that follow the annotation are brought back to their
 * spec, objects the user took over (annotation false) are left alone, and stale objects that
 * claim to follow the configuration are removed.
 */
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../server/harness.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

describe('bootstrap configuration at start', () => {
  it('recreates, restores, respects autoupdate-spec=false, and removes stale auto-updated objects', async () => {
    // One store for both servers; the first server's shutdown must not close it.
    const memory = new MemoryStore({ historyMs: false });
    const store = new Proxy(memory, {
      get: (target, prop) => {
        if (prop === 'close') return async () => undefined;
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const first = await startTestServer({ store });
    try {
      expect((await first.request('DELETE', `${FC}/flowschemas/service-accounts`)).status).toBe(200);
      // Follows the annotation: its spec comes back.
      expect((await first.request('PATCH', `${FC}/prioritylevelconfigurations/workload-low`, { body: { spec: { limited: { nominalConcurrencyShares: 7 } } }, headers: mergePatch })).status).toBe(200);
      // Taken over by the user: left as it is.
      const mine = await first.request('PATCH', `${FC}/prioritylevelconfigurations/global-default`, {
        body: { metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } }, spec: { limited: { nominalConcurrencyShares: 11 } } },
        headers: mergePatch,
      });
      expect(mine.status).toBe(200);
      // Claims to follow the configuration but is not part of it: removed.
      const stale = await first.request('POST', `${FC}/prioritylevelconfigurations`, {
        body: {
          apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
          kind: 'PriorityLevelConfiguration',
          metadata: { name: 'retired-level', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } },
          spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
        },
      });
      expect(stale.status).toBe(201);
    } finally {
      await first.close();
    }
    const second = await startTestServer({ store });
    try {
      const sa = await second.request('GET', `${FC}/flowschemas/service-accounts`);
      expect(sa.status).toBe(200);
      expect(sa.json.spec.priorityLevelConfiguration).toEqual({ name: 'workload-low' });
      expect(sa.json.metadata.managedFields.map((f: { manager: string }) => f.manager)).toContain('api-priority-and-fairness-config-producer-v1');
      expect((await second.request('GET', `${FC}/prioritylevelconfigurations/workload-low`)).json.spec.limited.nominalConcurrencyShares).toBe(100);
      expect((await second.request('GET', `${FC}/prioritylevelconfigurations/global-default`)).json.spec.limited.nominalConcurrencyShares).toBe(11);
      expect((await second.request('GET', `${FC}/prioritylevelconfigurations/retired-level`)).status).toBe(404);
      // The nominal seats follow the stored shares (global-default at 11 of 236 shares of 600).
      const m = (await second.request('GET', '/metrics')).text;
      expect(m).toMatch(/^apiserver_flowcontrol_nominal_limit_seats\{priority_level="global-default"\} 28$/m);
    } finally {
      await second.close();
    }
  }, 60_000);
});
