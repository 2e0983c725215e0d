import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTokenFile, parseTokenFile, readCsvRecords, TokenFileError } from '../../src/authn/token-file.ts';

describe('readCsvRecords (Go encoding/csv rules)', () => {
  it('splits plain rows and keeps spaces', () => {
    expect(readCsvRecords('a,b,c\n d , e,f \n')).toEqual([
      ['a', 'b', 'c'],
      [' d ', ' e', 'f '],
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks', () => {
    expect(readCsvRecords('t,"u,1","say ""hi""","a\nb"\nx,y,z')).toEqual([
      ['t', 'u,1', 'say "hi"', 'a\nb'],
      ['x', 'y', 'z'],
    ]);
  });

  it('skips empty lines, reads CRLF as LF, and keeps empty fields', () => {
    expect(readCsvRecords('\n\na,,c,\r\n\r\n"",b,c')).toEqual([
      ['a', '', 'c', ''],
      ['', 'b', 'c'],
    ]);
  });

  it('has no comment syntax: a # line is a record', () => {
    expect(readCsvRecords('# tokens\n')).toEqual([['# tokens']]);
  });

  it('refuses stray quotes with the line and column', () => {
    expect(() => readCsvRecords('a,b,c\nab"c,d,e')).toThrow('parse error on line 2, column 3: bare " in non-quoted-field');
    expect(() => readCsvRecords('a,"b"x,c')).toThrow('parse error on line 1, column 6: extraneous or missing " in quoted-field');
    expect(() => readCsvRecords('a,b\n"never closed,c\n')).toThrow(
      'parse error on line 2, column 1: extraneous or missing " in quoted-field',
    );
    expect(() => readCsvRecords(' "a",b,c')).toThrow(TokenFileError);
  });
});

describe('parseTokenFile', () => {
  it('reads token, user, uid and comma-separated groups; more columns are ignored', () => {
    const { users, warnings } = parseTokenFile(
      ['secret1,alice,uid-a,"dev,ops"', 'secret2,bob,uid-b', 'secret3,carol,uid-c,solo,ignored'].join('\n'),
    );
    expect(warnings).toEqual([]);
    expect(users.get('secret1')).toEqual({ username: 'alice', uid: 'uid-a', groups: ['dev', 'ops'], extra: {} });
    expect(users.get('secret2')).toEqual({ username: 'bob', uid: 'uid-b', groups: [], extra: {} });
    expect(users.get('secret3')).toEqual({ username: 'carol', uid: 'uid-c', groups: ['solo'], extra: {} });
    expect(users.size).toBe(3);
  });

  it('keeps kube\'s reading of an empty group column: one empty group name', () => {
    expect(parseTokenFile('t,u,1,').users.get('t')?.groups).toEqual(['']);
  });

  it('skips rows with an empty token and lets a repeated token keep its last row, warning about both', () => {
    const { users, warnings } = parseTokenFile(',nobody,0\nt,first,1\nt,second,2\n', '/etc/tokens.csv');
    expect(users.get('t')?.username).toBe('second');
    expect(users.has('')).toBe(false);
    expect(warnings).toEqual([
      "empty token has been found in token file '/etc/tokens.csv', record number '1'",
      "duplicate token has been found in token file '/etc/tokens.csv', record number '3'",
    ]);
  });

  it('refuses a row with fewer than 3 columns, as kube-apiserver does at start', () => {
    expect(() => parseTokenFile('t,u,1\nt2,u2\n', '/etc/tokens.csv')).toThrow(
      "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });

  it('loads from a file and fails on a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-tokens-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'tokens.csv');
    writeFileSync(path, 'abc,admin,1,system:masters\n');
    expect(loadTokenFile(path).users.get('abc')?.groups).toEqual(['system:masters']);
    expect(() => loadTokenFile(join(dir, 'absent.csv'))).toThrow(/ENOENT/);
  });
});
