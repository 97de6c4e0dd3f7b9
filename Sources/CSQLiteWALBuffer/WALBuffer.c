#include "CSQLiteWALBuffer.h"
#include "CSQLiteYieldPoints.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

enum {
    /// Larger transactions are written in pieces of this size (still far fewer calls than frames). The
    /// unix VFS writes at most 128 KiB - 1 per call and fails a larger write whose rest is a multiple of
    /// 128 KiB (its `seekAndWrite` masks the length), so pieces stay below that.
    BUFFER_CAPACITY = 64 * 1024,
    WAL_HEADER_SIZE = 32,
    FRAME_HEADER_SIZE = 24,
};

/// What a registered VFS shares with its files: the wrapped VFS and the counts tests read.
typedef struct WALBufferShared {
    sqlite3_vfs *base;
    int64_t writes;
    int64_t bytes;
} WALBufferShared;

/// An open WAL file. The wrapped VFS's file object lives right after it, in the same allocation.
typedef struct BufferedWAL {
    sqlite3_file base;
    sqlite3_file *real;
    WALBufferShared *shared;
    /// Bytes not yet written, which belong at `start`; allocated on first use.
    unsigned char *buffer;
    sqlite3_int64 start;
    int length;
    /// Page size from the WAL header; 0 while unknown (then writes are not buffered).
    int pageSize;
    int probedHeader;
    /// Where the commit frame being written ends; -1 when none is.
    sqlite3_int64 commitEnd;
} BufferedWAL;

static const sqlite3_io_methods bufferedWALMethods;

static int writeThrough(BufferedWAL *wal, const void *data, int amount, sqlite3_int64 offset) {
    __atomic_add_fetch(&wal->shared->writes, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&wal->shared->bytes, amount, __ATOMIC_RELAXED);
    return wal->real->pMethods->xWrite(wal->real, data, amount, offset);
}

/// Writes out what the buffer holds. On failure the bytes are dropped: SQLite fails the transaction they
/// belong to, and frames past the last published commit are never read.
static int flush(BufferedWAL *wal) {
    if (wal->length == 0) return SQLITE_OK;
    int length = wal->length;
    wal->length = 0;
    // A commit frame still being written (its page not yet here) keeps its mark: only its end flushes it.
    if (wal->commitEnd >= 0 && wal->start + length >= wal->commitEnd) wal->commitEnd = -1;
    return writeThrough(wal, wal->buffer, length, wal->start);
}

static int pageSizeFromHeader(const unsigned char *header) {
    uint32_t magic = ((uint32_t)header[0] << 24) | ((uint32_t)header[1] << 16) | ((uint32_t)header[2] << 8) | header[3];
    if ((magic & 0xFFFFFFFEu) != 0x377f0682u) return 0;
    uint32_t size = ((uint32_t)header[8] << 24) | ((uint32_t)header[9] << 16) | ((uint32_t)header[10] << 8) | header[11];
    if (size == 1) return 65536;
    if (size < 512 || size > 65536 || (size & (size - 1)) != 0) return 0;
    return (int)size;
}

static int walClose(sqlite3_file *file) {
    BufferedWAL *wal = (BufferedWAL *)file;
    int rc = flush(wal);
    int closed = wal->real->pMethods->xClose(wal->real);
    free(wal->buffer);
    wal->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int walRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    BufferedWAL *wal = (BufferedWAL *)file;
    tandem_sqlite_yield_point();
    int rc = flush(wal);
    if (rc != SQLITE_OK) return rc;
    return wal->real->pMethods->xRead(wal->real, data, amount, offset);
}

static int walWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    BufferedWAL *wal = (BufferedWAL *)file;
    tandem_sqlite_yield_point();
    const unsigned char *bytes = data;
    int rc;
    if (offset == 0 && amount >= WAL_HEADER_SIZE) {
        wal->pageSize = pageSizeFromHeader(bytes);
        wal->probedHeader = 1;
    } else if (!wal->probedHeader) {
        // A WAL that already had frames when it was opened: its header says how frames are laid out.
        unsigned char header[WAL_HEADER_SIZE];
        wal->probedHeader = 1;
        if (wal->real->pMethods->xRead(wal->real, header, WAL_HEADER_SIZE, 0) == SQLITE_OK) {
            wal->pageSize = pageSizeFromHeader(header);
        }
    }
    if (wal->length > 0 && offset != wal->start + wal->length) {
        rc = flush(wal);
        if (rc != SQLITE_OK) return rc;
    }
    if (wal->pageSize == 0) return writeThrough(wal, data, amount, offset);

    sqlite3_int64 frameSize = FRAME_HEADER_SIZE + wal->pageSize;
    if (offset >= WAL_HEADER_SIZE && (offset - WAL_HEADER_SIZE) % frameSize == 0 && amount >= FRAME_HEADER_SIZE) {
        // Bytes 4-7 of a frame header: the database size after the commit, 0 unless it ends a transaction.
        if (bytes[4] | bytes[5] | bytes[6] | bytes[7]) wal->commitEnd = offset + frameSize;
    }
    if (amount > BUFFER_CAPACITY - wal->length) {
        rc = flush(wal);
        if (rc != SQLITE_OK) return rc;
    }
    if (amount > BUFFER_CAPACITY) {
        rc = writeThrough(wal, data, amount, offset);
        if (wal->commitEnd >= 0 && offset + amount >= wal->commitEnd) wal->commitEnd = -1;
        return rc;
    }
    if (wal->buffer == NULL) {
        wal->buffer = malloc(BUFFER_CAPACITY);
        if (wal->buffer == NULL) return writeThrough(wal, data, amount, offset);
    }
    if (wal->length == 0) wal->start = offset;
    memcpy(wal->buffer + wal->length, bytes, (size_t)amount);
    wal->length += amount;
    if (wal->commitEnd >= 0 && offset + amount >= wal->commitEnd) return flush(wal);
    return SQLITE_OK;
}

static int walTruncate(sqlite3_file *file, sqlite3_int64 size) {
    BufferedWAL *wal = (BufferedWAL *)file;
    int rc = flush(wal);
    if (rc != SQLITE_OK) return rc;
    return wal->real->pMethods->xTruncate(wal->real, size);
}

static int walSync(sqlite3_file *file, int flags) {
    BufferedWAL *wal = (BufferedWAL *)file;
    int rc = flush(wal);
    if (rc != SQLITE_OK) return rc;
    return wal->real->pMethods->xSync(wal->real, flags);
}

static int walFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    BufferedWAL *wal = (BufferedWAL *)file;
    int rc = flush(wal);
    if (rc != SQLITE_OK) return rc;
    return wal->real->pMethods->xFileSize(wal->real, size);
}

static int walLock(sqlite3_file *file, int level) {
    BufferedWAL *wal = (BufferedWAL *)file;
    return wal->real->pMethods->xLock(wal->real, level);
}

static int walUnlock(sqlite3_file *file, int level) {
    BufferedWAL *wal = (BufferedWAL *)file;
    return wal->real->pMethods->xUnlock(wal->real, level);
}

static int walCheckReservedLock(sqlite3_file *file, int *result) {
    BufferedWAL *wal = (BufferedWAL *)file;
    return wal->real->pMethods->xCheckReservedLock(wal->real, result);
}

static int walFileControl(sqlite3_file *file, int op, void *argument) {
    BufferedWAL *wal = (BufferedWAL *)file;
    int rc = flush(wal);
    if (rc != SQLITE_OK) return rc;
    return wal->real->pMethods->xFileControl(wal->real, op, argument);
}

static int walSectorSize(sqlite3_file *file) {
    BufferedWAL *wal = (BufferedWAL *)file;
    return wal->real->pMethods->xSectorSize(wal->real);
}

static int walDeviceCharacteristics(sqlite3_file *file) {
    BufferedWAL *wal = (BufferedWAL *)file;
    return wal->real->pMethods->xDeviceCharacteristics(wal->real);
}

static int walShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **address) {
    BufferedWAL *wal = (BufferedWAL *)file;
    if (wal->real->pMethods->iVersion < 2) return SQLITE_IOERR_SHMMAP;
    return wal->real->pMethods->xShmMap(wal->real, region, size, extend, address);
}

static int walShmLock(sqlite3_file *file, int offset, int count, int flags) {
    BufferedWAL *wal = (BufferedWAL *)file;
    if (wal->real->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    return wal->real->pMethods->xShmLock(wal->real, offset, count, flags);
}

static void walShmBarrier(sqlite3_file *file) {
    BufferedWAL *wal = (BufferedWAL *)file;
    if (wal->real->pMethods->iVersion >= 2) wal->real->pMethods->xShmBarrier(wal->real);
}

static int walShmUnmap(sqlite3_file *file, int deleteFlag) {
    BufferedWAL *wal = (BufferedWAL *)file;
    if (wal->real->pMethods->iVersion < 2) return SQLITE_OK;
    return wal->real->pMethods->xShmUnmap(wal->real, deleteFlag);
}

static int walFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    BufferedWAL *wal = (BufferedWAL *)file;
    *pointer = NULL;
    int rc = flush(wal);
    if (rc != SQLITE_OK) return rc;
    if (wal->real->pMethods->iVersion < 3) return SQLITE_OK;
    return wal->real->pMethods->xFetch(wal->real, offset, amount, pointer);
}

static int walUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    BufferedWAL *wal = (BufferedWAL *)file;
    if (wal->real->pMethods->iVersion < 3) return SQLITE_OK;
    return wal->real->pMethods->xUnfetch(wal->real, offset, pointer);
}

static const sqlite3_io_methods bufferedWALMethods = {
    3,
    walClose, walRead, walWrite, walTruncate, walSync, walFileSize,
    walLock, walUnlock, walCheckReservedLock, walFileControl, walSectorSize, walDeviceCharacteristics,
    walShmMap, walShmLock, walShmBarrier, walShmUnmap,
    walFetch, walUnfetch,
};

static int bufferOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    WALBufferShared *shared = vfs->pAppData;
    if (!(flags & SQLITE_OPEN_WAL)) return shared->base->xOpen(shared->base, name, file, flags, outFlags);
    BufferedWAL *wal = (BufferedWAL *)file;
    memset(wal, 0, sizeof *wal);
    wal->real = (sqlite3_file *)(wal + 1);
    wal->shared = shared;
    wal->commitEnd = -1;
    int rc = shared->base->xOpen(shared->base, name, wal->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (wal->real->pMethods != NULL) wal->real->pMethods->xClose(wal->real);
        wal->base.pMethods = NULL;
        return rc;
    }
    wal->base.pMethods = &bufferedWALMethods;
    return SQLITE_OK;
}

static int bufferDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xDelete(base, name, syncDir);
}

static int bufferAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xAccess(base, name, flags, result);
}

static int bufferFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xFullPathname(base, name, size, output);
}

static void *bufferDlOpen(sqlite3_vfs *vfs, const char *name) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xDlOpen(base, name);
}

static void bufferDlError(sqlite3_vfs *vfs, int size, char *message) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    base->xDlError(base, size, message);
}

static void (*bufferDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xDlSym(base, handle, symbol);
}

static void bufferDlClose(sqlite3_vfs *vfs, void *handle) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    base->xDlClose(base, handle);
}

static int bufferRandomness(sqlite3_vfs *vfs, int size, char *output) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xRandomness(base, size, output);
}

static int bufferSleep(sqlite3_vfs *vfs, int microseconds) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xSleep(base, microseconds);
}

static int bufferCurrentTime(sqlite3_vfs *vfs, double *now) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xCurrentTime(base, now);
}

static int bufferGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    return base->xGetLastError ? base->xGetLastError(base, size, message) : 0;
}

static int bufferCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    sqlite3_vfs *base = ((WALBufferShared *)vfs->pAppData)->base;
    if (base->iVersion >= 2 && base->xCurrentTimeInt64 != NULL) return base->xCurrentTimeInt64(base, now);
    double days = 0;
    int rc = base->xCurrentTime(base, &days);
    *now = (sqlite3_int64)(days * 86400000.0);
    return rc;
}

int tandem_wal_buffer_register(const char *name) {
    int rc = sqlite3_initialize();
    if (rc != SQLITE_OK) return rc;
    sqlite3_mutex *mutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
    sqlite3_mutex_enter(mutex);
    if (sqlite3_vfs_find(name) != NULL) {
        sqlite3_mutex_leave(mutex);
        return SQLITE_OK;
    }
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    size_t nameLength = strlen(name) + 1;
    // Registered VFSs live as long as the process: SQLite keeps a pointer to this one.
    sqlite3_vfs *vfs = calloc(1, sizeof(sqlite3_vfs) + sizeof(WALBufferShared) + nameLength);
    if (base == NULL || vfs == NULL) {
        free(vfs);
        sqlite3_mutex_leave(mutex);
        return base == NULL ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    WALBufferShared *shared = (WALBufferShared *)(vfs + 1);
    char *storedName = (char *)(shared + 1);
    memcpy(storedName, name, nameLength);
    shared->base = base;
    vfs->iVersion = 2;
    vfs->szOsFile = (int)sizeof(BufferedWAL) + base->szOsFile;
    vfs->mxPathname = base->mxPathname;
    vfs->zName = storedName;
    vfs->pAppData = shared;
    vfs->xOpen = bufferOpen;
    vfs->xDelete = bufferDelete;
    vfs->xAccess = bufferAccess;
    vfs->xFullPathname = bufferFullPathname;
    vfs->xDlOpen = bufferDlOpen;
    vfs->xDlError = bufferDlError;
    vfs->xDlSym = bufferDlSym;
    vfs->xDlClose = bufferDlClose;
    vfs->xRandomness = bufferRandomness;
    vfs->xSleep = bufferSleep;
    vfs->xCurrentTime = bufferCurrentTime;
    vfs->xGetLastError = bufferGetLastError;
    vfs->xCurrentTimeInt64 = bufferCurrentTimeInt64;
    rc = sqlite3_vfs_register(vfs, 0);
    if (rc != SQLITE_OK) free(vfs);
    sqlite3_mutex_leave(mutex);
    return rc;
}

void tandem_wal_buffer_counts(const char *name, int64_t *writes, int64_t *bytes) {
    *writes = 0;
    *bytes = 0;
    sqlite3_vfs *vfs = sqlite3_vfs_find(name);
    if (vfs == NULL || vfs->xOpen != bufferOpen) return;
    WALBufferShared *shared = vfs->pAppData;
    *writes = __atomic_load_n(&shared->writes, __ATOMIC_RELAXED);
    *bytes = __atomic_load_n(&shared->bytes, __ATOMIC_RELAXED);
}
