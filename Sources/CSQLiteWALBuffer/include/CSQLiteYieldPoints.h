#ifndef TANDEM_SQLITE_YIELD_POINTS_H
#define TANDEM_SQLITE_YIELD_POINTS_H

// Yield points in SQLite work: a thread that opted in gives its core away (`sched_yield`) at the first yield
// point after it has run `interval` nanoseconds since its last yield. Yield points are a connection's progress
// handler (`tandem_sqlite_yield_progress`, every few virtual-machine instructions) and every read and write of
// a WAL file through the buffering VFS (so a checkpoint, which runs no instructions, reaches one per page).
//
// Why: a background thread that happens to hold a core while an event loop that shares it wants it back
// keeps it until the scheduler's next tick (4 ms at 250 Hz) unless it blocks; a loop that yielded between
// polls is runnable, not woken, so no wake-up preempts the thread for it (docs/bench/relays-profile.md).
//
// State is per thread: threads that did not opt in pass yield points at the cost of one thread-local load.

#include <stdint.h>

/// Makes the calling thread yield at yield points once it has run `nanoseconds` since its last yield (0: at
/// every yield point); a negative value opts it out again.
void tandem_sqlite_yield_every(int64_t nanoseconds);

/// A yield point; does nothing on a thread that did not opt in.
void tandem_sqlite_yield_point(void);

/// A progress handler for `sqlite3_progress_handler` that is a yield point and never interrupts.
int tandem_sqlite_yield_progress(void *unused);

/// How many times the calling thread has yielded at yield points.
int64_t tandem_sqlite_yield_count(void);

#endif
