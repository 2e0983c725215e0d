/**
 * `/logs`: kube-apiserver's logs handler (routes/logs.go), which hands `/logs/<path>` to Go's
 * http.ServeFile over its log directory. Here the directory is `--log-dir`; without it `/logs` is
 * not served (Go's 404, as a kube-apiserver whose logs handler is off answers). Authorization is the
 * pipeline's, as for any non-resource path (`/logs`, `/logs/*`).
 *
 * As ServeFile: a directory is an HTML listing (sorted, `<a href>` per entry, `/` after
 * directories), a directory path without its trailing slash is redirected to it (301), a file is
 * served through ServeContent (Last-Modified, ranges, conditionals), a path with `..` is refused
 * (400 `invalid URL path`), anything missing is `404 page not found`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serveContent } from '../serve-content.ts';
import { sendPageNotFound } from '../respond.ts';

/** kube's logFileNameIsTooLong: a name longer than 255 bytes is simply not found. */
const MAX_NAME_BYTES = 255;
/** Files bigger than this are not read into memory; they are answered 404 rather than streamed. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
  '.gz': 'application/gzip',
};

/** Serves `/logs` and below from `dir`; `subPath` is the path after `/logs` (may be empty). */
export async function serveLogs(req: FastifyRequest, reply: FastifyReply, dir: string, subPath: string): Promise<void> {
  // ServeFile refuses any request path with a `..` element.
  if (subPath.split('/').includes('..')) {
    reply.code(400).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache, private');
    reply.send('invalid URL path\n');
    return;
  }
  const root = resolve(dir);
  const target = resolve(root, `.${subPath === '' ? '/' : subPath}`);
  if (target !== root && !target.startsWith(root + sep)) return sendPageNotFound(reply);
  if (Buffer.byteLength(target) > MAX_NAME_BYTES + root.length + 1) return sendPageNotFound(reply);
  let info;
  try {
    info = await stat(target);
  } catch {
    return sendPageNotFound(reply);
  }
  if (info.isDirectory()) {
    // `/logs` itself is kube's list route; below it, ServeFile wants the trailing slash on a directory.
    if (subPath !== '' && !subPath.endsWith('/')) {
      const last = subPath.slice(subPath.lastIndexOf('/') + 1);
      reply.code(301).header('location', `${last}/`).header('cache-control', 'no-cache, private').send();
      return;
    }
    const entries = (await readdir(target, { withFileTypes: true })).map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    const body = `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${entries.map((n) => `<a href="${encodeURI(n).replace(/\?/g, '%3F').replace(/#/g, '%23')}">${escapeHtml(n)}</a>\n`).join('')}</pre>\n`;
    reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('last-modified', info.mtime.toUTCString())
      .header('cache-control', 'no-cache, private')
      .send(req.method === 'HEAD' ? undefined : body);
    return;
  }
  if (!info.isFile() || info.size > MAX_FILE_BYTES) return sendPageNotFound(reply);
  const body = await readFile(target);
  serveContent(req, reply, { body, contentType: CONTENT_TYPES[extname(target)] ?? 'text/plain; charset=utf-8', lastModified: info.mtime, cacheControl: 'no-cache, private' });
}

/** Go's htmlReplacer. */
function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}
