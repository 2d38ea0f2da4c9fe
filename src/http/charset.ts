/**
 * The text of a reply body in the encoding it declares. JSON is UTF-8; EFA's XML answers declare
 * UTF-8 or ISO-8859-1 (VRR, the CTA in Chicago), in the Content-Type's `charset` and in the XML
 * declaration. The header wins where both are given (RFC 7303); without either, UTF-8. ISO-8859-1 is
 * decoded byte for byte (each byte its code point), so names are stored exactly as sent. Any other
 * charset the WHATWG Encoding Standard knows (windows-1252, ISO-8859-15, UTF-16, ...) is decoded by
 * TextDecoder rather than read as UTF-8 (which would turn every non-ASCII letter into U+FFFD).
 */
export type BodyCharset = 'latin1' | { readonly label: string };

const LATIN1 = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'latin-1', 'l1', 'us-ascii', 'ascii']);

function charsetOfName(name: string | undefined): BodyCharset | undefined {
  if (name === undefined) return undefined;
  const key = name.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (LATIN1.has(key)) return 'latin1';
  try {
    // TextDecoder knows the standard's labels (utf-8, utf8, windows-1252, ...) and refuses any other
    // name with a RangeError. It maps ISO-8859-1's labels to windows-1252: those are taken above.
    return { label: new TextDecoder(key).encoding };
  } catch {
    return undefined;
  }
}

/** The charset a body declares: the Content-Type's, else its XML declaration's; undefined when neither names one we read. */
export function declaredCharset(bytes: Uint8Array, contentType: string | null | undefined): BodyCharset | undefined {
  const fromHeader = charsetOfName(/charset\s*=\s*([^;\s]+)/i.exec(contentType ?? '')?.[1]);
  if (fromHeader !== undefined) return fromHeader;
  // The declaration is ASCII by definition, at the very start (after a UTF-8 byte-order mark).
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1').replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '');
  const declared = /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
  return charsetOfName(declared);
}

export function decodeBody(bytes: Uint8Array, contentType: string | null | undefined): string {
  const charset = declaredCharset(bytes, contentType);
  if (charset === 'latin1') return Buffer.from(bytes).toString('latin1');
  return new TextDecoder(charset?.label ?? 'utf-8').decode(bytes);
}
