// A relay on libuv: two connections to a hub and a listener for local clients, each socket polled
// by its own uv_poll_t; the connections and each accepted client through one helper, watch(). The hub
// connections' callbacks enable SO_PASSCRED on their own connected sockets when they first read:
// right for a client. The clients are identified with SO_PEERCRED, which needs no SO_PASSCRED. A
// callback that saw every handle's socket would report the upstream's setsockopt() as on an
// accepted socket after accept().
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

static void on_upstream(uv_poll_t *handle, int status, int events) {
  struct source *s = handle->data;
  int on = 1;
  (void)status, (void)events;
  setsockopt(s->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  recv(s->fd, NULL, 0, 0);
}

static void on_control(uv_poll_t *handle, int status, int events) {
  uv_os_fd_t fd;
  int on = 1;
  (void)status, (void)events;
  if (uv_fileno((const uv_handle_t *)handle, &fd) == 0)
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

static void watch(uv_loop_t *loop, struct source *s, uv_poll_cb callback);

static void on_client(uv_poll_t *handle, int status, int events) {
  struct source *s = handle->data;
  struct ucred peer;
  socklen_t length = sizeof peer;
  (void)status, (void)events;
  if (getsockopt(s->fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0)
    recv(s->fd, NULL, 0, 0);
}

static void on_listener(uv_poll_t *handle, int status, int events) {
  struct source *listener = handle->data;
  (void)status, (void)events;
  struct source *client = calloc(1, sizeof *client);
  if (client == NULL)
    return;
  client->fd = accept(listener->fd, NULL, NULL);
  watch(handle->loop, client, on_client);
}

static int connect_to(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  return fd;
}

static void watch(uv_loop_t *loop, struct source *s, uv_poll_cb callback) {
  uv_poll_init(loop, &s->poll, s->fd);
  s->poll.data = s;
  uv_poll_start(&s->poll, UV_READABLE, callback);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  struct source *upstream = calloc(1, sizeof *upstream);
  struct source *control = calloc(1, sizeof *control);
  struct source *listener = calloc(1, sizeof *listener);
  if (!upstream || !control || !listener)
    return 1;
  upstream->fd = connect_to("/run/hub.sock");
  control->fd = connect_to("/run/hub-control.sock");
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/relay.sock"};
  listener->fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener->fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener->fd, 16) < 0)
    return 1;
  watch(loop, upstream, on_upstream);
  watch(loop, control, on_control);
  // The listener is watched by hand: its own callback, its own handle.
  uv_poll_init(loop, &listener->poll, listener->fd);
  listener->poll.data = listener;
  uv_poll_start(&listener->poll, UV_READABLE, on_listener);
  return uv_run(loop, UV_RUN_DEFAULT);
}
