#include "CSQLiteYieldPoints.h"

#include <sched.h>
#include <time.h>

/// Negative: the thread did not opt in.
static _Thread_local int64_t yieldInterval = -1;
static _Thread_local int64_t lastYield;
static _Thread_local int64_t yields;

static int64_t monotonicNanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void tandem_sqlite_yield_every(int64_t nanoseconds) {
    yieldInterval = nanoseconds;
    lastYield = monotonicNanoseconds();
}

void tandem_sqlite_yield_point(void) {
    if (yieldInterval < 0) return;
    if (monotonicNanoseconds() - lastYield < yieldInterval) return;
    sched_yield();
    yields += 1;
    // From the moment the thread runs again: the time it waited is not time it held the core.
    lastYield = monotonicNanoseconds();
}

int tandem_sqlite_yield_progress(void *unused) {
    (void)unused;
    tandem_sqlite_yield_point();
    return 0;
}

int64_t tandem_sqlite_yield_count(void) {
    return yields;
}
