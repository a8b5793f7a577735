/* Small helpers shared by the probe's testdata programs: fail loudly, send/receive fds and
 * credentials. Every program prints only deterministic text, so its stdout is identical with and
 * without the probe.
 *
 * Markers the probe's tests read (never hard-coded line numbers):
 *   PROBE-EXPECT: <rule>                 a rule the program must make the probe report ("none")
 *   PROBE-AT: <rule>                     the program line whose call (directly, or through a helper
 *                                        below) the finding is at: a frame of its stack
 *   PROBE-SOCKET: <rule> <type> <role>   the line that created the finding's socket
 *   PROBE-CALL                           (here) a call the probe intercepts: where findings are */
#pragma once
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CHECK(expr)                                                                                \
  do {                                                                                             \
    if (!(expr)) {                                                                                 \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, strerror(errno));      \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* Sends one byte with `count` copies of `fd` in SCM_RIGHTS; returns sendmsg()'s result. */
static inline ssize_t send_fds(int sock, int fd, int count) {
  char byte = 'x';
  struct iovec iov = {&byte, 1};
  size_t space = CMSG_SPACE(sizeof(int) * (size_t)count);
  char *control = calloc(1, space);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = space;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
  for (int i = 0; i < count; ++i)
    memcpy(CMSG_DATA(c) + i * sizeof(int), &fd, sizeof fd);
  ssize_t r = sendmsg(sock, &msg, 0); /* PROBE-CALL */
  int saved = errno;
  free(control);
  errno = saved;
  return r;
}

/* Receives one message; closes every fd that arrived and returns how many did. */
static inline int recv_and_close_fds(int sock) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int) * 253)];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  CHECK(recvmsg(sock, &msg, 0) >= 0); /* PROBE-CALL */
  int received = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < n; ++i) {
        int fd;
        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        close(fd);
      }
      received += n;
    }
  return received;
}

/* recvmsg() with room for one struct ucred; returns 1 and fills *out if SCM_CREDENTIALS came. */
static inline int recv_creds(int sock, char *data, size_t size, struct ucred *out) {
  struct iovec iov = {data, size};
  union {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  CHECK(recvmsg(sock, &msg, 0) >= 0); /* PROBE-CALL */
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      memcpy(out, CMSG_DATA(c), sizeof *out);
      return 1;
    }
  return 0;
}

/* A listening AF_UNIX stream socket on a fresh abstract address, and a client connected to it. */
static inline void listener_and_client(int *listener, int *client, int passcred_before_listen) {
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                              (size_t)snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1,
                                               "afunix-probe-testdata-%d", (int)getpid()));
  *listener = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(*listener >= 0);
  if (passcred_before_listen) {
    int one = 1;
    CHECK(setsockopt(*listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0);
  }
  CHECK(bind(*listener, (struct sockaddr *)&addr, len) == 0);
  CHECK(listen(*listener, 8) == 0);
  *client = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(*client >= 0);
  CHECK(connect(*client, (struct sockaddr *)&addr, len) == 0);
}

#include <sys/stat.h>

/* The socket inode of an fd. */
static inline unsigned long inode_of(int fd) {
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  return (unsigned long)st.st_ino;
}

/* How many of `inodes` the kernel still lists in /proc/net/unix: a socket freed by close() leaves
 * the list at once; one only the unix garbage collector can free stays until a GC run. `listed`
 * (if not NULL) gets a 1 for each one still listed. */
static inline int sockets_listed_which(const unsigned long *inodes, int n, int *listed_out) {
  FILE *f = fopen("/proc/net/unix", "r");
  CHECK(f != NULL);
  char line[512];
  int listed = 0;
  if (listed_out)
    memset(listed_out, 0, sizeof(int) * (size_t)n);
  CHECK(fgets(line, sizeof line, f) != NULL); /* header */
  while (fgets(line, sizeof line, f)) {
    unsigned long inode;
    if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &inode) != 1)
      continue;
    for (int i = 0; i < n; ++i)
      if (inodes[i] == inode) {
        ++listed;
        if (listed_out)
          listed_out[i] = 1;
      }
  }
  fclose(f);
  return listed;
}
static inline int sockets_listed(const unsigned long *inodes, int n) {
  return sockets_listed_which(inodes, n, NULL);
}

/* Closing a socket that is not in flight starts a unix GC run, asynchronously: let it finish
 * before closing what is in flight, so that it does not collect the garbage before it is seen. */
static inline void let_gc_run(void) { usleep(20000); }

/* sendmsg() of one byte and `fd` (once) in SCM_RIGHTS to the address `to`. */
static inline ssize_t send_fd_to(int sock, int fd, const struct sockaddr_un *to, socklen_t len) {
  char byte = 'x';
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof u);
  struct msghdr msg = {0};
  msg.msg_name = (void *)to;
  msg.msg_namelen = len;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(sock, &msg, 0); /* PROBE-CALL */
}
