// The machine's floor for the wire benchmark's 1,000-connection echo: the least a server and a client can
// spend per round trip over loopback TCP here, with no WebSocket framing and no runtime at all.
//
//   pingpong server-epoll PORT N SECONDS   level-triggered epoll, one recv + one send per message
//   pingpong server-uring PORT N SECONDS   io_uring: a recv per connection in flight, the send queued on
//                                          its completion, one submit per batch (built with liburing)
//   pingpong client PORT N SECONDS         N connections, one 32-byte message in flight on each
//
// Each side prints its rate and its thread's CPU microseconds per message.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef WITH_URING
#include <liburing.h>
#endif

enum { MESSAGE = 32, MAX_CONNECTIONS = 4096 };

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static struct sockaddr_in loopback(int port) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return address;
}

static void noDelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/// Listens on PORT and accepts N connections.
static void acceptAll(int port, int count, int *fds) {
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = loopback(port);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 4096)) {
        perror("pingpong: listen");
        exit(1);
    }
    for (int i = 0; i < count; i++) {
        fds[i] = accept(listener, NULL, NULL);
        noDelay(fds[i]);
    }
    close(listener);
}

static void report(const char *who, long messages, double wall, double cpu) {
    fprintf(stderr, "%s: %.0f msgs/s, %.2f CPU us/msg\n", who, messages / wall, cpu * 1e6 / (messages ? messages : 1));
}

/// Reads what is ready on each readable descriptor and sends it back; until SECONDS have passed.
static long epollLoop(int epoll, double duration, int echo, const char *message) {
    struct epoll_event events[512];
    static char buffer[65536];
    long messages = 0;
    double start = seconds(CLOCK_MONOTONIC);
    while (seconds(CLOCK_MONOTONIC) - start < duration) {
        int ready = epoll_wait(epoll, events, 512, 100);
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            ssize_t got = recv(fd, buffer, sizeof buffer, 0);
            if (got <= 0) continue;
            send(fd, echo ? buffer : message, echo ? (size_t)got : MESSAGE, MSG_NOSIGNAL);
            messages++;
        }
    }
    return messages;
}

static int watch(int *fds, int count) {
    int epoll = epoll_create1(0);
    for (int i = 0; i < count; i++) {
        struct epoll_event event = {.events = EPOLLIN, .data.fd = fds[i]};
        epoll_ctl(epoll, EPOLL_CTL_ADD, fds[i], &event);
    }
    return epoll;
}

static void serverEpoll(int port, int count, double duration) {
    static int fds[MAX_CONNECTIONS];
    acceptAll(port, count, fds);
    int epoll = watch(fds, count);
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
    long messages = epollLoop(epoll, duration, 1, NULL);
    report("server-epoll", messages, seconds(CLOCK_MONOTONIC) - wall, seconds(CLOCK_THREAD_CPUTIME_ID) - cpu);
}

#ifdef WITH_URING
static void serverUring(int port, int count, double duration) {
    static int fds[MAX_CONNECTIONS];
    static char buffers[MAX_CONNECTIONS][256];
    acceptAll(port, count, fds);
    struct io_uring ring;
    struct io_uring_params params = {.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN};
    if (io_uring_queue_init_params(4096, &ring, &params) < 0) {
        params.flags = 0;
        if (io_uring_queue_init_params(4096, &ring, &params) < 0) {
            perror("pingpong: io_uring");
            exit(1);
        }
    }
    io_uring_register_files(&ring, fds, count);
    for (int i = 0; i < count; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        io_uring_prep_recv(sqe, i, buffers[i], sizeof buffers[i], 0);
        sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data64(sqe, (unsigned long)i);
    }
    long messages = 0;
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
    while (seconds(CLOCK_MONOTONIC) - wall < duration) {
        struct io_uring_cqe *cqe;
        struct __kernel_timespec timeout = {.tv_sec = 0, .tv_nsec = 100000000};
        io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &timeout, NULL);
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            seen++;
            int i = (int)(cqe->user_data & 0xffffffff), sent = (int)(cqe->user_data >> 32);
            if (!sent && cqe->res <= 0) continue;
            struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
            if (!sqe) {
                io_uring_submit(&ring);
                sqe = io_uring_get_sqe(&ring);
            }
            if (!sent) {
                io_uring_prep_send(sqe, i, buffers[i], cqe->res, MSG_NOSIGNAL);
                io_uring_sqe_set_data64(sqe, (1UL << 32) | (unsigned long)i);
                messages++;
            } else {
                io_uring_prep_recv(sqe, i, buffers[i], sizeof buffers[i], 0);
                io_uring_sqe_set_data64(sqe, (unsigned long)i);
            }
            sqe->flags |= IOSQE_FIXED_FILE;
        }
        io_uring_cq_advance(&ring, seen);
    }
    report("server-uring", messages, seconds(CLOCK_MONOTONIC) - wall, seconds(CLOCK_THREAD_CPUTIME_ID) - cpu);
}
#endif

static void client(int port, int count, double duration) {
    static int fds[MAX_CONNECTIONS];
    char message[MESSAGE];
    memset(message, 'x', sizeof message);
    for (int i = 0; i < count; i++) {
        struct sockaddr_in address = loopback(port);
        for (;;) {
            fds[i] = socket(AF_INET, SOCK_STREAM, 0);
            if (connect(fds[i], (struct sockaddr *)&address, sizeof address) == 0) break;
            close(fds[i]);
            usleep(1000);
        }
        noDelay(fds[i]);
    }
    int epoll = watch(fds, count);
    for (int i = 0; i < count; i++) send(fds[i], message, sizeof message, 0);
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
    long messages = epollLoop(epoll, duration, 0, message);
    report("client", messages, seconds(CLOCK_MONOTONIC) - wall, seconds(CLOCK_THREAD_CPUTIME_ID) - cpu);
}

int main(int argc, char **argv) {
    if (argc != 5 || atoi(argv[3]) < 1 || atoi(argv[3]) > MAX_CONNECTIONS) {
        fprintf(stderr, "usage: pingpong server-epoll|server-uring|client PORT CONNECTIONS SECONDS\n");
        return 2;
    }
    int port = atoi(argv[2]), count = atoi(argv[3]);
    double duration = atof(argv[4]);
    if (!strcmp(argv[1], "server-epoll")) serverEpoll(port, count, duration);
#ifdef WITH_URING
    else if (!strcmp(argv[1], "server-uring")) serverUring(port, count, duration);
#endif
    else if (!strcmp(argv[1], "client")) client(port, count, duration);
    else {
        fprintf(stderr, "pingpong: unknown or unavailable mode '%s'\n", argv[1]);
        return 2;
    }
    return 0;
}
