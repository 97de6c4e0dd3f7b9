#ifndef TANDEM_C_SYSTEM_H
#define TANDEM_C_SYSTEM_H

// Linux system calls that the toolchain's Glibc module does not export to Swift.
//
// epoll and eventfd come straight from their headers (Glibc's module map does not cover them); Swift imports
// struct epoll_event with its real layout (packed on x86-64: 12 bytes, data at offset 4). accept4 and
// pthread_setname_np are GNU extensions: the Glibc module is built without _GNU_SOURCE, so a header included here
// would resolve to that module and still hide them. They are therefore wrapped by out-of-line functions compiled
// in CTandemSystem.c, which defines _GNU_SOURCE. <sys/socket.h> is included there, not here: including it in this
// header would make this module own socket declarations such as SOCK_STREAM and hide them from files that import
// only Glibc.

#ifdef __linux__
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC): the accepted socket is non-blocking and close-on-exec
/// from its creation, without a window in which another thread's fork/exec could inherit it.
int tandem_accept_nonblocking(int fd);

/// pthread_setname_np on the calling thread; `name` is truncated to the kernel's 15-byte limit.
int tandem_set_thread_name(const char *name);

/// setpriority on the calling thread only (Linux nice values are per thread): 0 normal, 19 lowest.
int tandem_set_thread_nice(int value);

/// sched_setscheduler(SCHED_IDLE) on the calling thread only: it then runs on CPU time no other thread wants,
/// and the scheduler counts a core running nothing else as idle when it places a waking thread.
int tandem_set_thread_idle_policy(void);

/// The number of CPUs the calling thread may run on (sched_getaffinity: taskset, a container's cpuset), or -1.
int tandem_affinity_cpu_count(void);
#endif

#endif
