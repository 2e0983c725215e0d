/**
 * The admission chain's plugin calls: plugins answering synchronously and with promises, refusing
 * by throwing or by rejecting, in order, each call timed under its plugin's accepted or rejected
 * series (kube's controller and step histograms), with and without metrics attached.
 */
import { describe, expect, it } from 'vitest';
import { AdmissionChain } from '../../src/admission/chain.ts';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../../src/admission/types.ts';
import { MetricsRegistry } from '../../src/metrics/registry.ts';
import { parsePromText, sampleValue } from '../metrics/prom-text.ts';

function attrs(operation: AdmissionOperation, name: string): AdmissionAttributes {
  return { operation, name } as unknown as AdmissionAttributes;
}

/** A plugin that logs its calls and refuses objects named `refuse-<its name>`, synchronously or not. */
function plugin(name: string, mode: 'sync' | 'async', calls: string[]): AdmissionPlugin {
  const run = (phase: string) => (a: AdmissionAttributes) => {
    const refuse = (a as unknown as { name: string }).name === `refuse-${name}`;
    if (mode === 'sync') {
      calls.push(`${name}.${phase}`);
      if (refuse) throw new Error(`${name} refuses`);
      return;
    }
    return Promise.resolve().then(() => {
      calls.push(`${name}.${phase}`);
      if (refuse) throw new Error(`${name} refuses`);
    });
  };
  return { name, handles: (op) => op !== 'CONNECT', admit: run('admit'), validate: run('validate') };
}

async function outcome(p: Promise<void>): Promise<string> {
  return p.then(
    () => 'ok',
    (err: Error) => err.message,
  );
}

describe('admission chain calls', () => {
  it('calls sync and async plugins in order, and a refusal of either kind stops the phase', async () => {
    const calls: string[] = [];
    const chain = new AdmissionChain([plugin('A', 'sync', calls), plugin('B', 'async', calls), plugin('C', 'sync', calls)]);
    expect(await outcome(chain.admit(attrs('CREATE', 'x')))).toBe('ok');
    expect(await outcome(chain.validate(attrs('CREATE', 'x')))).toBe('ok');
    expect(calls.splice(0)).toEqual(['A.admit', 'B.admit', 'C.admit', 'A.validate', 'B.validate', 'C.validate']);
    expect(await outcome(chain.admit(attrs('CREATE', 'refuse-A')))).toBe('A refuses');
    expect(calls.splice(0)).toEqual(['A.admit']);
    expect(await outcome(chain.validate(attrs('UPDATE', 'refuse-B')))).toBe('B refuses');
    expect(calls.splice(0)).toEqual(['A.validate', 'B.validate']);
    // CONNECT: no plugin handles it.
    expect(await outcome(chain.admit(attrs('CONNECT', 'x')))).toBe('ok');
    expect(calls).toEqual([]);
  });

  it('times every call under its plugin, type, operation and outcome', async () => {
    const calls: string[] = [];
    const chain = new AdmissionChain([plugin('A', 'sync', calls), plugin('B', 'async', calls)]);
    const registry = new MetricsRegistry();
    chain.registerMetrics(registry);
    for (let i = 0; i < 3; i++) await chain.admit(attrs('CREATE', 'x'));
    await chain.validate(attrs('CREATE', 'x'));
    await chain.validate(attrs('UPDATE', 'x'));
    await outcome(chain.validate(attrs('DELETE', 'refuse-B')));
    await outcome(chain.admit(attrs('CREATE', 'refuse-A')));
    const m = parsePromText(await registry.expose());
    const controller = (name: string, type: string, operation: string, rejected: string) =>
      sampleValue(m, 'apiserver_admission_controller_admission_duration_seconds_count', { name, type, operation, rejected });
    expect(controller('A', 'admit', 'CREATE', 'false')).toBe(3);
    expect(controller('B', 'admit', 'CREATE', 'false')).toBe(3);
    expect(controller('A', 'admit', 'CREATE', 'true')).toBe(1);
    expect(controller('B', 'admit', 'CREATE', 'true')).toBeUndefined();
    expect(controller('A', 'validate', 'CREATE', 'false')).toBe(1);
    expect(controller('A', 'validate', 'UPDATE', 'false')).toBe(1);
    expect(controller('B', 'validate', 'UPDATE', 'false')).toBe(1);
    expect(controller('A', 'validate', 'DELETE', 'false')).toBe(1);
    expect(controller('B', 'validate', 'DELETE', 'true')).toBe(1);
    expect(controller('B', 'validate', 'DELETE', 'false')).toBeUndefined();
    const step = (type: string, operation: string, rejected: string) => sampleValue(m, 'apiserver_admission_step_admission_duration_seconds_count', { type, operation, rejected });
    expect(step('admit', 'CREATE', 'false')).toBe(3);
    expect(step('admit', 'CREATE', 'true')).toBe(1);
    expect(step('validate', 'DELETE', 'true')).toBe(1);
  });
});
