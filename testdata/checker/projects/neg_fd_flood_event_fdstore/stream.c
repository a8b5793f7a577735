#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

static int stream_new(sd_event_source *es, int fd, unsigned revents, void *userdata) {
  Server *s = userdata;
  int client = accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (client < 0)
    return 0;
  Stream *stream = calloc(1, sizeof *stream);
  if (!stream) {
    close(client);
    return 0;
  }
  stream->server = s;
  stream->fd = client;
  stream->next_notify = s->notify_queue;
  s->notify_queue = stream;
  return 0;
}

int stream_listen(Server *s) {
  s->stdout_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s->stdout_fd < 0 || listen(s->stdout_fd, 4096) < 0)
    return -1;
  return sd_event_add_io(s->event, 0, s->stdout_fd, 1, stream_new, s);
}

// Stores the connection in the service manager's fd store (FDSTORE=1): one stream per message,
// never retried before the next EPOLLOUT.
void stream_send_notify(Stream *stream) {
  char text[] = "FDSTORE=1";
  struct iovec iov = {.iov_base = text, .iov_len = sizeof text - 1};
  char control[CMSG_SPACE(sizeof(int))];
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &stream->fd, sizeof(int));
  if (sendmsg(stream->server->notify_fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
    if (errno == EAGAIN)
      return;
  }
  stream->server->notify_queue = stream->next_notify;
}
