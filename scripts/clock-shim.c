/*
 * Moves the wall clock of a process by EFA_CLOCK_OFFSET_S seconds, and nothing else: clock_gettime
 * (CLOCK_REALTIME and CLOCK_REALTIME_COARSE), gettimeofday and time. Loaded with LD_PRELOAD into the
 * throw-away PostgreSQL server of `EFA_TEST_CLOCK_POSTGRES=1 npm run test:clock-ahead`: under
 * libfaketime that server never fires statement_timeout or lock_timeout (measured on PostgreSQL 15 with
 * Debian's libfaketime 0.9.10: a 1 s statement_timeout let a 3 s pg_sleep finish), because libfaketime
 * also wraps the waits. Timers, sleeps and monotonic clocks are left alone here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset_s;
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);

__attribute__((constructor)) static void init(void) {
  const char *value = getenv("EFA_CLOCK_OFFSET_S");
  offset_s = value ? atoll(value) : 0;
  real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  if (!real_clock_gettime) init();
  int r = real_clock_gettime(id, ts);
  if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += offset_s;
  return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
  if (!real_gettimeofday) init();
  int r = real_gettimeofday(tv, tz);
  if (r == 0 && tv) tv->tv_sec += offset_s;
  return r;
}

time_t time(time_t *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}
