/**
 * One clock per test. `efa-sync run` takes its run date from the machine's clock (the UTC day: it asks
 * AddInfo for the notices valid on it), while the simulator answers for the day it is started with.
 * A test that spawns the CLI against the simulator starts the simulator on the CLI's day and computes
 * its expectations for that same day, so the suite passes whatever the machine's date (it is also run
 * with the clock a year ahead: docs/development.md).
 */
export function cliRunDate(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}
