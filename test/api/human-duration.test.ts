import { describe, expect, it } from 'vitest';
import { humanDuration, timestampSince } from '../../src/api/kinds/human-duration.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it.each([
    [-3 * s, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [45 * s, '45s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 10 * s, '5m10s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 20 * m, '3h20m'],
    [8 * h + 59 * m, '8h'],
    [47 * h, '47h'],
    [2 * d + 3 * h, '2d3h'],
    [7 * d, '7d'],
    [8 * d + 5 * h, '8d'],
    [400 * d, '400d'],
    [2 * 365 * d + 30 * d, '2y30d'],
    [3 * 365 * d, '3y'],
    [9 * 365 * d + 100 * d, '9y'],
  ])('%d ms is %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });

  it('renders a timestamp age and <unknown> for none', () => {
    const now = new Date('2024-05-03T12:00:00Z');
    expect(timestampSince('2024-05-01T09:00:00Z', now)).toBe('2d3h');
    expect(timestampSince(undefined, now)).toBe('<unknown>');
    expect(timestampSince(null, now)).toBe('<unknown>');
  });
});
