// As pos_models_libevent_bufferevent, but the clients' read callback never sets SO_PASSCRED. The
// upstream's read callback enables it on the upstream's own connected socket, a client's right
// order. Read per type (every conn's fd, accepted ones among them), that would be "enabled on
// accepted socket after accept()": a false finding the cbarg keeps away.
#define _GNU_SOURCE
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct conn {
  int fd;
  struct bufferevent *bev;
};

static void on_upstream_read(struct bufferevent *bev, void *ctx) {
  struct conn *c = ctx;
  int on = 1;
  setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

static void on_client_read(struct bufferevent *bev, void *ctx) {
  (void)ctx;
  evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

static void on_client_event(struct bufferevent *bev, short what, void *ctx) {
  struct conn *c = ctx;
  (void)what;
  bufferevent_free(bev);
  free(c);
}

static void on_accept(evutil_socket_t listener, short what, void *arg) {
  struct event_base *base = arg;
  (void)what;
  struct conn *c = calloc(1, sizeof *c);
  if (c == NULL)
    return;
  c->fd = accept(listener, NULL, NULL);
  c->bev = bufferevent_socket_new(base, c->fd, BEV_OPT_CLOSE_ON_FREE);
  bufferevent_setcb(c->bev, on_client_read, NULL, on_client_event, c);
  bufferevent_enable(c->bev, EV_READ);
}

int main(void) {
  struct event_base *base = event_base_new();
  struct sockaddr_un server = {.sun_family = AF_UNIX, .sun_path = "/run/relay.sock"};
  struct sockaddr_un hub = {.sun_family = AF_UNIX, .sun_path = "/run/hub.sock"};
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener, (struct sockaddr *)&server, sizeof server) < 0 || listen(listener, 16) < 0)
    return 1;
  struct event *accepting = event_new(base, listener, EV_READ | EV_PERSIST, on_accept, base);
  event_add(accepting, NULL);
  struct conn *up = calloc(1, sizeof *up);
  if (up == NULL)
    return 1;
  up->fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (connect(up->fd, (struct sockaddr *)&hub, sizeof hub) < 0)
    return 1;
  up->bev = bufferevent_socket_new(base, up->fd, BEV_OPT_CLOSE_ON_FREE);
  bufferevent_setcb(up->bev, on_upstream_read, NULL, NULL, up);
  bufferevent_enable(up->bev, EV_READ);
  return event_base_dispatch(base);
}

