// As pos_models_glib_user_data: the upstream connection, a struct conn like each accepted client,
// enables SO_PASSCRED on its own connected socket before it sends (a client's right order), in a
// callback a GIOChannel watch (g_io_add_watch()) hands only that connection. The clients'
// callback never sets it. Read per type, the upstream's option would be one on every conn's fd,
// accepted sockets among them: "enabled on accepted socket after accept()", a false finding.
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
  return read(c->fd, buf, sizeof buf) > 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static gboolean on_listener(gint fd, GIOCondition condition, gpointer data) {
  (void)condition;
  (void)data;
  struct conn *c = g_new0(struct conn, 1);
  c->fd = accept(fd, NULL, NULL);
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
