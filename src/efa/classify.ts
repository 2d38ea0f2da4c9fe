import type { HttpReply } from '../http/types.js';
import { EfaHtmlPageError, EfaHttpStatusError, EfaNotJsonError, EfaXmlRefusedError, type ReplyContext } from './errors.js';
import { looksLikeXml, parseXml, XmlRefusedError } from './parse/xml/tree.js';
import { excerpt } from './excerpt.js';
import type { Operation } from './operations.js';
import { headerValue, parseRetryAfter } from './retry-after.js';

export interface ReplySource {
  readonly operation: Operation;
  readonly path: string;
  readonly secrets: readonly string[];
}

export function replyContext(reply: HttpReply, source: ReplySource): ReplyContext {
  return {
    operation: source.operation,
    path: source.path,
    status: reply.status,
    excerpt: excerpt(reply.body, source.secrets),
  };
}

/** Proxies and maintenance pages answer with HTML, often with status 200. */
function looksLikeHtml(body: string): boolean {
  const head = body.slice(0, 2048).trimStart();
  // An XML declaration opens an XML answer, whatever its text mentions further on, unless its root is html (XHTML).
  if (head.startsWith('<?xml')) return /^<\?xml[^>]*\?>\s*(<!doctype\s+html|<html[\s>])/i.test(head);
  return head.startsWith('<') && /<(!doctype\s+html|html|head|body|title)[\s>]/i.test(head);
}

/**
 * Turns a reply into the decoded body (JSON, or an XmlBody for an XML answer), or throws the error that says what went wrong. The
 * Content-Type header is only a tie-breaker: some EFA deployments label JSON as text/html.
 */
export function decodeReply(reply: HttpReply, source: ReplySource): unknown {
  // Only an error carries the context: its excerpt walks the whole body (a large first night's
  // answers are 200 kB each), which a good answer must not pay for.
  const ctx = (): ReplyContext => replyContext(reply, source);
  if (reply.status < 200 || reply.status > 299) {
    throw new EfaHttpStatusError(ctx(), parseRetryAfter(headerValue(reply.headers, 'retry-after')));
  }
  if (looksLikeHtml(reply.body)) throw new EfaHtmlPageError(ctx());
  if (reply.body.trim() === '') throw new EfaNotJsonError(ctx(), 'empty body');
  // XML (outputFormat=XML): a body that starts with `<` and is no HTML page; the Content-Type is not needed.
  if (looksLikeXml(reply.body)) {
    try {
      return parseXml(reply.body);
    } catch (error) {
      if (error instanceof XmlRefusedError) throw new EfaXmlRefusedError(ctx(), error.reason, error.truncated);
      throw error;
    }
  }
  try {
    return JSON.parse(reply.body) as unknown;
  } catch (error) {
    if (/html/i.test(headerValue(reply.headers, 'content-type') ?? '')) throw new EfaHtmlPageError(ctx());
    const message = error instanceof Error ? error.message : String(error);
    // V8 says "end of input" for most cuts, but after a number it names the position instead:
    // an error at the very end of the body is a cut body too.
    const position = /at position (\d+)/.exec(message)?.[1];
    const truncated = /end of (JSON )?input|unterminated/i.test(message) || Number(position) === reply.body.length;
    throw new EfaNotJsonError(ctx(), truncated ? 'truncated' : 'invalid JSON');
  }
}
