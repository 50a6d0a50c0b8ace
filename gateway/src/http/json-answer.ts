// How an endpoint's answer leaves: JSON encoded to UTF-8 through one reused buffer.
import type { Request, Response } from 'express';

/**
 * The answer as JSON. Not `res.json`: it parses and formats its own Content-Type again on every
 * answer to add the charset this one states. A GET whose answer carries an ETag (a member) keeps
 * Express's conditional answer: 304 when If-None-Match names it.
 */
export function sendJson(req: Request, res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  if (res.getHeader('ETag') !== undefined && req.fresh) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const bytes = utf8(JSON.stringify(body));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

const encoder = new TextEncoder();
/** Bodies up to this many characters are encoded through one reused buffer (3 bytes each). */
const SCRATCH_CHARS = 256 * 1024;
const scratch = new Uint8Array(SCRATCH_CHARS * 3);

/**
 * `text` as UTF-8. A string written to the socket is encoded by node's slower path, and its
 * length is measured by another pass first (figures: docs/decisions/0005-fast-hot-path.md).
 */
function utf8(text: string): Buffer {
  if (text.length > SCRATCH_CHARS) return Buffer.from(text, 'utf8');
  const { written } = encoder.encodeInto(text, scratch);
  return Buffer.from(scratch.subarray(0, written));
}
