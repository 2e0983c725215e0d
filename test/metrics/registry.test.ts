import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../src/metrics/registry.ts';
import { formatValue } from '../../src/metrics/exposition.ts';

describe('metrics exposition format', () => {
  it('writes numbers as Go shortest %g does', () => {
    expect(formatValue(20000)).toBe('20000');
    expect(formatValue(311382016)).toBe('3.11382016e+08');
    expect(formatValue(1795615961.79)).toBe('1.79561596179e+09');
    expect(formatValue(1_000_000)).toBe('1e+06');
    expect(formatValue(0.005)).toBe('0.005');
    expect(formatValue(7.8368e-5)).toBe('7.8368e-05');
    expect(formatValue(8.58)).toBe('8.58');
    expect(formatValue(18446744073709551615)).toBe('1.8446744073709552e+19');
    expect(formatValue(Infinity)).toBe('+Inf');
    expect(formatValue(NaN)).toBe('NaN');
    expect(formatValue(0)).toBe('0');
  });

  it('sorts families by name, labels by name, metrics by label values; escapes values and help', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'z_total', help: 'Help with \\ and\nnewline.', labels: ['verb', 'code'], stability: 'STABLE' });
    c.labels('PUT', '200').inc();
    c.labels('GET', '404').inc(2);
    c.labels('GET', '200').inc();
    c.labels('GET', '200').inc();
    r.gauge({ name: 'a_gauge', help: 'A gauge.', labels: ['v'] }).labels('say "hi"\n').set(1.5);
    r.counter({ name: 'm_unused_total', help: 'Never incremented.' });
    expect(await r.expose()).toBe(
      [
        '# HELP a_gauge [ALPHA] A gauge.',
        '# TYPE a_gauge gauge',
        'a_gauge{v="say \\"hi\\"\\n"} 1.5',
        '# HELP z_total [STABLE] Help with \\\\ and\\nnewline.',
        '# TYPE z_total counter',
        'z_total{code="200",verb="GET"} 2',
        'z_total{code="200",verb="PUT"} 1',
        'z_total{code="404",verb="GET"} 2',
        '',
      ].join('\n'),
    );
  });

  it('writes histograms with cumulative buckets, +Inf, sum and count', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: 'd_seconds', help: 'Durations.', labels: ['verb'], buckets: [0.1, 1] });
    const child = h.labels('GET');
    child.observe(0.05);
    child.observe(0.1); // on a bound: counted in that bucket (le)
    child.observe(0.5);
    child.observe(3);
    expect(await r.expose()).toBe(
      [
        '# HELP d_seconds [ALPHA] Durations.',
        '# TYPE d_seconds histogram',
        'd_seconds_bucket{verb="GET",le="0.1"} 2',
        'd_seconds_bucket{verb="GET",le="1"} 3',
        'd_seconds_bucket{verb="GET",le="+Inf"} 4',
        'd_seconds_sum{verb="GET"} 3.65',
        'd_seconds_count{verb="GET"} 4',
        '',
      ].join('\n'),
    );
  });

  it('reuses one child per label set and refuses bad registrations', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'x_total', help: 'x', labels: ['a', 'b'] });
    expect(c.labels('1', '2')).toBe(c.labels('1', '2'));
    expect(c.labels('1', '2')).not.toBe(c.labels('1', '3'));
    expect(() => c.labels('1')).toThrow(/expected 2 label values/);
    expect(() => r.counter({ name: 'x_total', help: 'again' })).toThrow(/already registered/);
    expect(() => r.gauge({ name: 'bad-name', help: 'x' })).toThrow(/invalid metric name/);
    expect(() => r.histogram({ name: 'h', help: 'x', buckets: [1, 1] })).toThrow(/increase/);
  });

  it('runs collectors at scrape time', async () => {
    const r = new MetricsRegistry();
    let n = 1;
    r.collector({ name: 'objects', help: 'Objects.', type: 'gauge', stability: 'STABLE', collect: async () => [{ labels: { resource: 'b' }, value: n }, { labels: { resource: 'a' }, value: -1 }] });
    n = 7;
    expect(await r.expose()).toBe('# HELP objects [STABLE] Objects.\n# TYPE objects gauge\nobjects{resource="a"} -1\nobjects{resource="b"} 7\n');
  });
});
