import { describe, expect, it } from 'vitest';
import { repairMojibake } from '../../src/efa/text/mojibake.js';

describe('repairMojibake', () => {
  it('repairs double-encoded UTF-8', () => {
    expect(repairMojibake('MÃ¼nchen Hbf')).toEqual({ text: 'München Hbf', repaired: true });
    expect(repairMojibake('StraÃŸe')).toEqual({ text: 'Straße', repaired: true });
    expect(repairMojibake('Ã–PNV â€“ Info')).toEqual({ text: 'ÖPNV – Info', repaired: true });
  });

  it('leaves correct and ambiguous text alone', () => {
    expect(repairMojibake('München Hbf')).toEqual({ text: 'München Hbf', repaired: false });
    expect(repairMojibake('Ã alone')).toEqual({ text: 'Ã alone', repaired: false });
    // A real character outside Latin-1 next to a mojibake pair: not a clean double encoding.
    expect(repairMojibake('MÃ¼nchen → Köln')).toEqual({ text: 'MÃ¼nchen → Köln', repaired: false });
  });
});
