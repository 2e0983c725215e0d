/**
 * Static bearer tokens from `--token-auth-file`: CSV rows `token,user,uid[,"group1,group2"]`,
 * read with the rules of Go's encoding/csv (which kube-apiserver uses), so a file that works
 * there works here and a file it refuses is refused here too.
 */
import { readFileSync } from 'node:fs';
import type { TokenAuthenticator, UserInfo } from './types.ts';

/** A token file row that kube-apiserver would refuse; the server must not start with it. */
export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

export interface TokenFileEntries {
  readonly users: ReadonlyMap<string, UserInfo>;
  /** Non-fatal findings (empty or duplicate tokens), worded for the log. */
  readonly warnings: readonly string[];
}

/**
 * Parses token file text. Rows need at least 3 fields; the 4th, when present, is split on
 * commas into groups; further fields are ignored. Rows with an empty token are skipped, and a
 * repeated token keeps its last row, both with a warning. Throws TokenFileError on bad CSV.
 */
export function parseTokenFile(text: string, path = '<token file>'): TokenFileEntries {
  const users = new Map<string, UserInfo>();
  const warnings: string[] = [];
  let recordNumber = 0;
  for (const record of readCsvRecords(text)) {
    if (record.length < 3) {
      throw new TokenFileError(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    }
    recordNumber++;
    const [token, username, uid, groups] = record as [string, string, string, string | undefined];
    if (token === '') {
      warnings.push(`empty token has been found in token file '${path}', record number '${recordNumber}'`);
      continue;
    }
    if (users.has(token)) {
      warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNumber}'`);
    }
    users.set(
      token,
      Object.freeze({
        username,
        uid,
        // As kube does: an empty 4th column yields one empty group name.
        groups: Object.freeze(groups === undefined ? [] : groups.split(',')),
        extra: Object.freeze({}),
      }),
    );
  }
  return { users, warnings };
}

/** Reads and parses the token file at `path` once (changes need a restart, as in kube). Throws on unreadable or bad files. */
export function loadTokenFile(path: string): TokenFileEntries {
  return parseTokenFile(readFileSync(path, 'utf8'), path);
}

/** A token step answering from a fixed token table; unknown tokens are `no-credentials` so that later steps may know them. */
export function createTokenFileAuthenticator(users: ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  return {
    name: 'token-file',
    authenticateToken: async (token) => {
      const user = users.get(token);
      return user ? { kind: 'authenticated', user } : { kind: 'no-credentials' };
    },
  };
}

/**
 * Splits CSV text into records the way Go's encoding/csv does with its default settings:
 * comma separator, no comment character, no trimming, empty lines skipped, `""` escapes a quote
 * inside a quoted field, quoted fields may span lines, `\r\n` reads as `\n`, and a stray quote
 * is an error.
 */
export function readCsvRecords(text: string): string[][] {
  const src = text.replace(/\r\n/g, '\n');
  const records: string[][] = [];
  let pos = 0;
  let line = 1;
  const fail = (atLine: number, column: number, what: string): never => {
    throw new TokenFileError(`parse error on line ${atLine}, column ${column}: ${what}`);
  };

  while (pos < src.length) {
    if (src[pos] === '\n') {
      pos++;
      line++;
      continue;
    }
    const record: string[] = [];
    let lineStart = pos;
    for (;;) {
      let field = '';
      if (src[pos] === '"') {
        const quoteLine = line;
        const quoteColumn = pos - lineStart + 1;
        pos++;
        for (;;) {
          const close = src.indexOf('"', pos);
          if (close === -1) fail(quoteLine, quoteColumn, 'extraneous or missing " in quoted-field');
          const chunk = src.slice(pos, close);
          for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) {
            line++;
            lineStart = pos + i + 1;
          }
          field += chunk;
          pos = close + 1;
          if (src[pos] === '"') {
            field += '"';
            pos++;
            continue;
          }
          if (pos < src.length && src[pos] !== ',' && src[pos] !== '\n') {
            fail(line, pos - lineStart + 1, 'extraneous or missing " in quoted-field');
          }
          break;
        }
      } else {
        let end = pos;
        while (end < src.length && src[end] !== ',' && src[end] !== '\n') end++;
        field = src.slice(pos, end);
        const bare = field.indexOf('"');
        if (bare !== -1) fail(line, pos - lineStart + bare + 1, 'bare " in non-quoted-field');
        pos = end;
      }
      record.push(field);
      if (src[pos] === ',') {
        pos++;
        continue;
      }
      // End of line or of text ends the record.
      if (src[pos] === '\n') {
        pos++;
        line++;
      }
      break;
    }
    records.push(record);
  }
  return records;
}
