export { allRejected, boxAnswer, judgeBoxAnswer } from './judge.js';
export type { BoxVerdict } from './judge.js';
export { failure, settle } from './outcome.js';
export type { FailedOutcome, KeptOutcome, KeptStatus, Placement, SplitOutcome, TileOutcome } from './outcome.js';
export { createBoxStep, notSpatialNote, todaySplitter } from './step.js';
export type { BoxStep, BoxStepOptions, Splitter } from './step.js';
export { sweepBoxes } from './boxes.js';
export type { BoxSink, BoxSweepEnd, BoxSweepOptions } from './boxes.js';
export { afterSilentCap, remarkSilentCapped, silentCapWarning } from './silent-cap.js';
