#ifndef TANDEM_C_SPAWN_H
#define TANDEM_C_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated) through posix_spawn, with `input`, `output` and
/// `error` as the child's descriptors 0, 1 and 2, every other descriptor closed, an empty signal mask and every
/// signal at its default disposition (a parent that ignores SIGPIPE or blocks SIGTERM does not pass that on).
/// Returns 0 and stores the child's id in `pid`, or the errno value that made the spawn fail.
int tandem_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int error, pid_t *pid);

/// A pipe whose two ends are close-on-exec from their creation (pipe2 with O_CLOEXEC), so a child another
/// thread starts meanwhile does not inherit them. Returns 0, or -1 with errno set.
int tandem_pipe_cloexec(int ends[2]);

#endif
