/**
 * Preloaded into a child process the benches measure (`node --import dist/bench/peak-rss.js …`): at
 * exit, its peak resident set as the kernel counted it (getrusage ru_maxrss, in KiB) is written, in
 * bytes, to $EFA_BENCH_PEAK_RSS_FILE. Sampling from outside would miss a peak between two samples.
 */
import { writeFileSync } from 'node:fs';

const file = process.env['EFA_BENCH_PEAK_RSS_FILE'];
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
