import { redactUrl } from '../util/redact.js';

/**
 * Pushing a run's metrics to a Prometheus Pushgateway (`--metrics-push-url`): what a Kubernetes
 * CronJob needs, whose pod and emptyDir vanish with the night. HTTP PUT of the text exposition to
 * `<url>/metrics/job/<job>` replaces the job's group, so a series of an earlier night that this
 * run no longer writes does not linger. The samples carry the job as `efa_job` (as in the textfile);
 * the gateway adds `job` from the group. Prometheus scrapes the gateway with `honor_labels: true`.
 */

const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8';

/** `<url>/metrics/job/<job>`, the job name percent-encoded (a slash in it would start a label). */
export function pushgatewayGroupUrl(base: string, job: string): URL {
  const url = new URL(base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) URL: ${redactUrl(base)}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/metrics/job/${encodeURIComponent(job)}`;
  return url;
}

/** Redirects a request to the gateway follows, each to the gateway's own origin. */
const MAX_REDIRECTS = 3;

/**
 * A request to the gateway. Credentials in the URL (`https://user:pass@gateway`, a gateway behind
 * basic auth) are sent as an Authorization header: fetch refuses a URL that carries them. A
 * redirect is followed only to the same origin (scheme, host and port), so neither the metrics nor
 * the credentials are sent to a host the operator did not name; any other redirect is an error.
 */
async function gatewayFetch(target: URL, init: { method: 'GET' | 'PUT'; headers?: Record<string, string>; body?: string }, timeoutMs: number): Promise<Response> {
  const url = new URL(target);
  const headers: Record<string, string> = { ...init.headers };
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const signal = AbortSignal.timeout(timeoutMs);
  let current = url;
  for (let hop = 0; ; hop += 1) {
    const response = await fetch(current, { ...init, headers, redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    const next = new URL(location, current);
    if (next.origin !== url.origin) {
      throw new Error(`the Pushgateway at ${redactUrl(target.toString())} redirected (HTTP ${response.status}) to another origin, ${next.origin}: not followed; give that URL itself if it is the gateway`);
    }
    if (hop >= MAX_REDIRECTS) throw new Error(`the Pushgateway at ${redactUrl(target.toString())} redirected more than ${MAX_REDIRECTS} times`);
    current = next;
  }
}

/** PUTs the metrics text; throws naming the gateway (redacted) and its answer when it refuses. */
export async function pushMetrics(base: string, job: string, text: string, timeoutMs = 10_000): Promise<void> {
  const url = pushgatewayGroupUrl(base, job);
  const response = await gatewayFetch(url, { method: 'PUT', headers: { 'content-type': TEXT_FORMAT }, body: text }, timeoutMs);
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).trim().slice(0, 200);
    throw new Error(`the Pushgateway at ${redactUrl(url.toString())} answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * The last-success time the gateway holds for the job, to carry it over a run that did not
 * succeed (the PUT replaces the whole group). Undefined when the gateway has none or cannot say.
 */
export async function readPushedLastSuccess(base: string, job: string, timeoutMs = 5_000): Promise<number | undefined> {
  try {
    const url = new URL(base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/metrics`;
    const response = await gatewayFetch(url, { method: 'GET' }, timeoutMs);
    if (!response.ok) return undefined;
    const text = await response.text();
    // The gateway re-exposes the sample with its own labels beside ours (instance=""), in any order.
    const escaped = job.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    for (const line of text.split('\n')) {
      if (!line.startsWith('efa_sync_run_last_success_timestamp_seconds{')) continue;
      const close = line.lastIndexOf('}');
      if (!line.slice(0, close).includes(`job="${escaped}"`)) continue;
      const value = Number(line.slice(close + 1).trim().split(/\s+/)[0]);
      if (Number.isFinite(value)) return value;
    }
  } catch {
    // A gateway that cannot be read now is told by the push that follows.
  }
  return undefined;
}
