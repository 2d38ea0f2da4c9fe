/**
 * A request's query parameters as an ordered list. Order is kept because EFA examples (and
 * operators reading logs) expect filter blocks to stay together, and repeatable parameters are
 * simply several pairs with the same name. A `null` value is a flag sent without `=`
 * (`boundingBox`), which URLSearchParams cannot express.
 */
export type Param = readonly [name: string, value: string | null];
export type Params = readonly Param[];

export class ParamList {
  private readonly pairs: Param[] = [];

  /** Sends `name=value`; an undefined value sends nothing, so optional options stay optional. */
  add(name: string, value: string | number | undefined): this {
    if (value !== undefined) this.pairs.push([name, String(value)]);
    return this;
  }

  /** Sends `name=1` when the option is on; EFA switches are `1` or absent. */
  flag(name: string, on: boolean | undefined): this {
    if (on === true) this.pairs.push([name, '1']);
    return this;
  }

  /** Sends the bare name without a value. */
  bare(name: string): this {
    this.pairs.push([name, null]);
    return this;
  }

  /** A repeatable parameter: one pair per value, all under the same name. */
  addEach(name: string, values: readonly (string | number)[] | undefined): this {
    for (const value of values ?? []) this.pairs.push([name, String(value)]);
    return this;
  }

  addAll(params: Params): this {
    this.pairs.push(...params);
    return this;
  }

  toParams(): Params {
    return [...this.pairs];
  }
}

/** Form-encodes pairs like URLSearchParams does, but keeps value-less flags bare. */
export function toQueryString(params: Params): string {
  return params
    .map(([name, value]) => {
      const encoded = new URLSearchParams([[name, value ?? '']]).toString();
      return value === null ? encoded.slice(0, -1) : encoded;
    })
    .join('&');
}

/** For callers that prefer URLSearchParams; flags become `name=` there. */
export function toSearchParams(params: Params): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of params) search.append(name, value ?? '');
  return search;
}
