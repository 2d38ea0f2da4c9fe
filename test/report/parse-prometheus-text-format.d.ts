// The package ships no types; this is the shape its README documents (prom2json-compatible).
declare module 'parse-prometheus-text-format' {
  export interface PromSample {
    readonly value: string;
    readonly labels?: Record<string, string>;
  }
  export interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'GAUGE' | 'COUNTER' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
