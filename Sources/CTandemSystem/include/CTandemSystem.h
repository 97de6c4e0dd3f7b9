#ifndef TANDEM_C_SYSTEM_H
#define TANDEM_C_SYSTEM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#endif

#endif
