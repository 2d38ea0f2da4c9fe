/**
 * Released migrations whose file changed afterwards in a way that leaves a warehouse that applied
 * the old text as the new text would: the sha256 of every earlier text, still accepted by migrate.
 * 14: its trigger functions, triggers, _as_of/_versions functions, efa.history_relations() and
 * history comments became definitions generated from the relations' declarations (src/relations/).
 */
export const LEGACY_CHECKSUMS: Readonly<Record<number, readonly string[]>> = {
  14: ['801380c0808fe34cde704006c0d92a64f5dec00cbb3de6175f99d96155e51d80'],
};
