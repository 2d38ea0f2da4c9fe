/**
 * Names of indexed parameters. EFA spells them two ways: most with an underscore
 * (`type_0`, `radius_0`), the sharing ones without (`vehPId0`, `opAreaId0`, `vehLocType0`).
 */
export function underscored(base: string, index: number): string {
  return `${base}_${index}`;
}

export function suffixed(base: string, index: number): string {
  return `${base}${index}`;
}

/** `[vehLocType0, A], [vehLocType1, B]`: one running index per value. */
export function indexedEach(base: string, values: readonly string[]): [string, string][] {
  return values.map((value, index) => [suffixed(base, index), value]);
}
