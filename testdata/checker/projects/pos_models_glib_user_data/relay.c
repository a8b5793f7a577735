// A relay in the shape of a GLib service: each accepted client and its upstream connection are a
// struct conn, and the loop hands each callback the conn it was registered with (its user_data:
// models/event-loops.yaml, `passes`): the clients' through g_unix_fd_add(), the upstream's through
// a GIOChannel watch (g_io_add_watch()). The client callback enables SO_PASSCRED on the accepted
// socket only after accept(). The upstream connection enables it on its own connected socket
// before it sends, which is right for a client and must not be reported (neg_models_glib_user_data).
#define _GNU_SOURCE
#include <glib-unix.h>
#include <glib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct conn {
  int fd;
  GIOChannel *channel;
  guint watch;
};

static gboolean on_upstream_writable(GIOChannel *channel, GIOCondition condition, gpointer data) {
  struct conn *c = data;
  int on = 1;
  (void)channel;
  (void)condition;
  setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  send(c->fd, "hello", 5, 0);
  return G_SOURCE_REMOVE;
}

static gboolean on_client_readable(gint fd, GIOCondition condition, gpointer data) {
  struct conn *c = data;
  char buf[64];
  (void)fd;
  (void)condition;
  int on = 1;
  setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late
  return read(c->fd, buf, sizeof buf) > 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static gboolean on_listener(gint fd, GIOCondition condition, gpointer data) {
  (void)condition;
  (void)data;
  struct conn *c = g_new0(struct conn, 1);
  c->fd = accept(fd, NULL, NULL); // EXPECT-NOTE: accept() here
  c->watch = g_unix_fd_add(c->fd, G_IO_IN, on_client_readable, c);
  return G_SOURCE_CONTINUE;
}

int main(void) {
  struct sockaddr_un server = {.sun_family = AF_UNIX, .sun_path = "/run/relay.sock"};
  struct sockaddr_un upstream = {.sun_family = AF_UNIX, .sun_path = "/run/hub.sock"};
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener, (struct sockaddr *)&server, sizeof server) < 0 || listen(listener, 16) < 0)
    return 1;
  g_unix_fd_add(listener, G_IO_IN, on_listener, NULL);
  struct conn *up = g_new0(struct conn, 1);
  up->fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (connect(up->fd, (struct sockaddr *)&upstream, sizeof upstream) < 0)
    return 1;
  up->channel = g_io_channel_unix_new(up->fd);
  up->watch = g_io_add_watch(up->channel, G_IO_OUT, on_upstream_writable, up);
  g_main_loop_run(g_main_loop_new(NULL, FALSE));
  return 0;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: int listener = socket(AF_UNIX, SOCK_STREAM, 0);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
