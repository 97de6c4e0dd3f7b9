#ifndef TANDEM_SQLITE_WAL_BUFFER_H
#define TANDEM_SQLITE_WAL_BUFFER_H

// A SQLite VFS that gathers the writes of a WAL file in memory and hands them to the file system in one
// `pwrite` per transaction.
//
// Why: SQLite writes each WAL frame with two calls (its 24-byte header, then the page), so a transaction
// of 110 pages of 1 KiB cost 220 system calls, each taking the file's locks and updating its times; the
// journal's materializer spent about half of its CPU there (docs/bench/relays-profile.md).
//
// Guarantee: no other connection can see a frame before it is in the file. Frames become visible to other
// connections only when a commit frame is written and the writer then publishes the new WAL length in the
// shared index; the buffer is written out as soon as it holds the end of a commit frame, inside the
// `xWrite` of that frame, so a failure fails the commit. It is also written out before any read, sync,
// truncate, size query, file control or close of the WAL, and before a write that does not continue it.
// Other files (the database, rollback journals) go straight to the wrapped VFS.
//
// Every read and write of a WAL file is also a yield point (CSQLiteYieldPoints.h).

#include <stdint.h>

#include "CSQLiteYieldPoints.h"

/// Registers (once per name) a buffering VFS called `name` that wraps the process's default VFS; returns
/// SQLITE_OK or an SQLite error code. Thread-safe. Open databases with this name as `sqlite3_open_v2`'s
/// `zVfs`.
int tandem_wal_buffer_register(const char *name);

/// The number of writes the VFS called `name` has passed to the wrapped VFS for WAL files, and the bytes
/// they carried (both 0 when no such VFS is registered). For tests and diagnostics.
void tandem_wal_buffer_counts(const char *name, int64_t *writes, int64_t *bytes);

#endif
