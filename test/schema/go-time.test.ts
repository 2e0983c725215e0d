/** parseGoTime against Go: every expectation below is what Go 1.23's time.Parse printed for the input (RFC3339, RFC3339Micro). */
import { describe, expect, it } from 'vitest';
import { parseGoTime } from '../../src/schema/go-time.ts';

type Outcome = [kind: 'ok' | 'err', text: string];
const table: [input: string, time: Outcome, micro: Outcome][] = [
  [
    "2024-01-02T03:04:05Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05.123456Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "ok",
      "2024-01-02T03:04:05.123456Z"
    ]
  ],
  [
    "2024-01-02T03:04:05.1234567Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.1234567Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7Z\" as \"Z07:00\""
    ]
  ],
  [
    "2024-01-02T03:04:05.123Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.123Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".123Z\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05,123456Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "ok",
      "2024-01-02T03:04:05.123456Z"
    ]
  ],
  [
    "2024-01-02t03:04:05Z",
    [
      "err",
      "parsing time \"2024-01-02t03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"t03:04:05Z\" as \"T\""
    ],
    [
      "err",
      "parsing time \"2024-01-02t03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"t03:04:05Z\" as \"T\""
    ]
  ],
  [
    "2024-01-02T03:04:05z",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" as \"Z07:00\""
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"z\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T3:04:05Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T3:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05+01:30",
    [
      "ok",
      "2024-01-02T01:34:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+01:30\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:30\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05.123456-05:00",
    [
      "ok",
      "2024-01-02T08:04:05Z"
    ],
    [
      "ok",
      "2024-01-02T08:04:05.123456Z"
    ]
  ],
  [
    "2024-02-30T03:04:05Z",
    [
      "err",
      "parsing time \"2024-02-30T03:04:05Z\": day out of range"
    ],
    [
      "err",
      "parsing time \"2024-02-30T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""
    ]
  ],
  [
    "2024-13-02T03:04:05Z",
    [
      "err",
      "parsing time \"2024-13-02T03:04:05Z\": month out of range"
    ],
    [
      "err",
      "parsing time \"2024-13-02T03:04:05Z\": month out of range"
    ]
  ],
  [
    "2024-01-02T24:04:05Z",
    [
      "err",
      "parsing time \"2024-01-02T24:04:05Z\": hour out of range"
    ],
    [
      "err",
      "parsing time \"2024-01-02T24:04:05Z\": hour out of range"
    ]
  ],
  [
    "2024-01-02T03:60:05Z",
    [
      "err",
      "parsing time \"2024-01-02T03:60:05Z\": minute out of range"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:60:05Z\": minute out of range"
    ]
  ],
  [
    "2024-01-02T03:04:60Z",
    [
      "err",
      "parsing time \"2024-01-02T03:04:60Z\": second out of range"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:60Z\": second out of range"
    ]
  ],
  [
    "2024-01-02",
    [
      "err",
      "parsing time \"2024-01-02\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"T\""
    ],
    [
      "err",
      "parsing time \"2024-01-02\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \"T\""
    ]
  ],
  [
    "xyz",
    [
      "err",
      "parsing time \"xyz\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"xyz\" as \"2006\""
    ],
    [
      "err",
      "parsing time \"xyz\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"xyz\" as \"2006\""
    ]
  ],
  [
    "",
    [
      "err",
      "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\""
    ],
    [
      "err",
      "parsing time \"\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \"2006\""
    ]
  ],
  [
    "2024-01-02T03:04:05",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\""
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05Zextra",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05Zextra\": extra text: \"extra\""
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05Zextra\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Zextra\" as \".000000\""
    ]
  ],
  [
    "2024-01-02 03:04:05Z",
    [
      "err",
      "parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 03:04:05Z\" as \"T\""
    ],
    [
      "err",
      "parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \" 03:04:05Z\" as \"T\""
    ]
  ],
  [
    "2024-1-02T03:04:05Z",
    [
      "err",
      "parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"1-02T03:04:05Z\" as \"01\""
    ],
    [
      "err",
      "parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"1-02T03:04:05Z\" as \"01\""
    ]
  ],
  [
    "2024-01-02T03:04:05+0100",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+0100\" as \"Z07:00\""
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+0100\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05+25:00",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+25:00\": time zone offset hour out of range"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+25:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+25:00\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05.12345aZ",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.12345aZ\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"aZ\" as \"Z07:00\""
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.12345aZ\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".12345aZ\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05.Z",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".Z\" as \"Z07:00\""
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".Z\" as \".000000\""
    ]
  ],
  [
    "0001-01-01T00:00:00Z",
    [
      "ok",
      "0001-01-01T00:00:00Z"
    ],
    [
      "err",
      "parsing time \"0001-01-01T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05.999999999Z",
    [
      "ok",
      "2024-01-02T03:04:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.999999999Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"999Z\" as \"Z07:00\""
    ]
  ],
  [
    "2024-12-31T23:30:00-01:00",
    [
      "ok",
      "2025-01-01T00:30:00Z"
    ],
    [
      "err",
      "parsing time \"2024-12-31T23:30:00-01:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"-01:00\" as \".000000\""
    ]
  ],
  [
    "2024-01-02T03:04:05.1234567+01:00",
    [
      "ok",
      "2024-01-02T02:04:05Z"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05.1234567+01:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7+01:00\" as \"Z07:00\""
    ]
  ],
  [
    "2024-01-02T03:04:05+01:61",
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+01:61\": time zone offset minute out of range"
    ],
    [
      "err",
      "parsing time \"2024-01-02T03:04:05+01:61\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:61\" as \".000000\""
    ]
  ]
];

describe('parseGoTime', () => {
  it.each(table)('%j', (input, time, micro) => {
    for (const [layout, want] of [['Time', time], ['MicroTime', micro]] as const) {
      const r = parseGoTime(input, layout);
      expect(r.ok ? ['ok', r.value] : ['err', r.message]).toEqual(want);
    }
  });
});
