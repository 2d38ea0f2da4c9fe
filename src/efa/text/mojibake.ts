/**
 * Repairs text that was UTF-8, decoded once as Latin-1/Windows-1252 and encoded again
 * ("MÃ¼nchen" for "München"), a common fault of EFA deployments behind old proxies.
 *
 * Only unambiguous cases are repaired: the text must contain a typical mojibake pair (Ã or Â
 * followed by a continuation character), every character must fit in one byte, and the bytes must
 * decode as valid UTF-8. Anything else is returned unchanged.
 */
const cp1252 = new Map<number, number>([
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86], [0x2021, 0x87],
  [0x02c6, 0x88], [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c], [0x017d, 0x8e], [0x2018, 0x91],
  [0x2019, 0x92], [0x201c, 0x93], [0x201d, 0x94], [0x2022, 0x95], [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98],
  [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b], [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f],
]);
const decoder = new TextDecoder('utf-8', { fatal: true });

const byteOf = (ch: string): number | undefined => {
  const code = ch.codePointAt(0) ?? 0;
  return code <= 0xff ? code : cp1252.get(code);
};

/** A lead byte of a 2- or 3-byte UTF-8 sequence (Ã, Â, â, …) followed by a continuation byte. */
function suspicious(text: string): boolean {
  const chars = [...text];
  return chars.some((ch, i) => {
    const lead = byteOf(ch);
    const next = chars[i + 1] === undefined ? undefined : byteOf(chars[i + 1] as string);
    return lead !== undefined && lead >= 0xc2 && lead <= 0xef && next !== undefined && next >= 0x80 && next <= 0xbf;
  });
}

export function repairMojibake(text: string): { text: string; repaired: boolean } {
  if (!suspicious(text)) return { text, repaired: false };
  const bytes: number[] = [];
  for (const ch of text) {
    const byte = byteOf(ch);
    if (byte === undefined) return { text, repaired: false };
    bytes.push(byte);
  }
  try {
    const fixed = decoder.decode(Uint8Array.from(bytes));
    return fixed === text ? { text, repaired: false } : { text: fixed, repaired: true };
  } catch {
    return { text, repaired: false };
  }
}

/**
 * Mojibake repair of one record's free text (titles, body text, directions), counted into
 * `attrs._mojibakeRepaired`. Names are kept as the server sent them, like ids: where a name looks
 * double-encoded its repaired reading goes to `attrs.nameRepaired` beside it, never in its place.
 */
export class TextRepairs {
  private count = 0;
  private repairedName: string | undefined;

  text(value: string): string {
    const result = repairMojibake(value);
    if (result.repaired) this.count += 1;
    return result.text;
  }

  /** Returns `value` unchanged; remembers its repaired reading for `attrs()`. */
  name(value: string): string {
    const result = repairMojibake(value);
    if (result.repaired) this.repairedName ??= result.text;
    return value;
  }

  attrs(): Record<string, unknown> {
    return {
      ...(this.count === 0 ? {} : { _mojibakeRepaired: this.count }),
      ...(this.repairedName === undefined ? {} : { nameRepaired: this.repairedName }),
    };
  }
}
