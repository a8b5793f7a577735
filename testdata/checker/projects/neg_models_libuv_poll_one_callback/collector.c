// A collector on libuv: three datagram sockets, each polled by its own uv_poll_t, and one callback
// for all of them that finds its source through the handle's data pointer and reads
// SCM_CREDENTIALS. Every socket enables SO_PASSCRED before bind(): the log socket itself, the audit
// and metrics sockets through trusted(). No registration hands the callback a socket without it.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

struct source {
  uv_poll_t poll;
  int fd;
};

// The pid the kernel attached to the next datagram on fd, 0 if none came with it.
#define RECEIVE_SENDER(fd, out)                                                                    \
  do {                                                                                             \
    char data[256];                                                                                \
    char control[CMSG_SPACE(sizeof(struct ucred))];                                                \
    struct iovec iov = {data, sizeof data};                                                        \
    struct msghdr msg = {                                                                          \
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control}; \
    (out) = recvmsg((fd), &msg, 0) < 0 ? -1 : 0;                                                   \
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); (out) == 0 && c; c = CMSG_NXTHDR(&msg, c))       \
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {                        \
        struct ucred cred;                                                                         \
        memcpy(&cred, CMSG_DATA(c), sizeof cred);                                                  \
        (out) = cred.pid;                                                                          \
      }                                                                                            \
  } while (0)

static pid_t last_sender;

static void on_readable(uv_poll_t *handle, int status, int events) {
  struct source *s = handle->data;
  (void)status, (void)events;
  RECEIVE_SENDER(s->fd, last_sender);
}

static int bind_to(int fd, const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  return bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 ? -1 : fd;
}

static int trusted(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0 ? -1 : fd;
}

static void watch(uv_loop_t *loop, struct source *s, uv_poll_cb callback) {
  uv_poll_init(loop, &s->poll, s->fd);
  s->poll.data = s;
  uv_poll_start(&s->poll, UV_READABLE, callback);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  struct source *log = calloc(1, sizeof *log);
  struct source *audit = calloc(1, sizeof *audit);
  struct source *metrics = calloc(1, sizeof *metrics);
  if (!log || !audit || !metrics)
    return 1;
  int on = 1;
  int log_socket = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(log_socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  log->fd = bind_to(log_socket, "/run/collector/log");
  audit->fd = bind_to(trusted(socket(AF_UNIX, SOCK_DGRAM, 0)), "/run/collector/audit");
  metrics->fd = bind_to(trusted(socket(AF_UNIX, SOCK_DGRAM, 0)), "/run/collector/metrics");
  watch(loop, log, on_readable);
  watch(loop, audit, on_readable);
  watch(loop, metrics, on_readable);
  return uv_run(loop, UV_RUN_DEFAULT);
}
