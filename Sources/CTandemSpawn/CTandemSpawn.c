// posix_spawn_file_actions_addclosefrom_np and pipe2 are GNU extensions, declared only under _GNU_SOURCE.
#define _GNU_SOURCE
#include "CTandemSpawn.h"

#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

int tandem_pipe_cloexec(int ends[2]) {
#ifdef __APPLE__
    if (pipe(ends) != 0) return -1;
    fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    fcntl(ends[1], F_SETFD, FD_CLOEXEC);
    return 0;
#else
    return pipe2(ends, O_CLOEXEC);
#endif
}

int tandem_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int error, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    // dup2 onto the same number clears close-on-exec, so a descriptor the parent passes as is stays open.
    const int sources[3] = {input, output, error};
    for (int target = 0; target < 3 && result == 0; target++) {
        result = posix_spawn_file_actions_adddup2(&actions, sources[target], target);
    }
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
#ifdef __APPLE__
    flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;
#else
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setflags(&attributes, flags);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
