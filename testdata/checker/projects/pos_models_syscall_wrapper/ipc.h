// The library's header: its sendmsg() wrapper (retries on EINTR, counts bytes), body not here.
#pragma once
#include <sys/socket.h>
#include <sys/types.h>
ssize_t ipc_sendmsg(int fd, const struct msghdr *msg, int flags);
