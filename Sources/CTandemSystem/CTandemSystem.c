// accept4, pthread_setname_np and gettid are GNU extensions, declared only under _GNU_SOURCE.
#define _GNU_SOURCE
#include "CTandemSystem.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int tandem_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int tandem_set_thread_name(const char *name) {
    // The kernel limit is 16 bytes including the terminator; longer names fail with ERANGE.
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}

int tandem_set_thread_nice(int value) {
    // On Linux a nice value belongs to a thread: PRIO_PROCESS with a thread id changes that thread alone.
    return setpriority(PRIO_PROCESS, (id_t)gettid(), value);
}

int tandem_set_thread_idle_policy(void) {
    // Pid 0 is the calling thread: scheduling policies, too, are per thread on Linux.
    struct sched_param parameters = { .sched_priority = 0 };
    return sched_setscheduler(0, SCHED_IDLE, &parameters);
}

int tandem_affinity_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}
#endif
