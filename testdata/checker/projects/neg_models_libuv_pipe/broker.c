// A broker on libuv pipes done right: SO_PASSCRED is set through uv_fileno() between
// uv_pipe_bind(), which makes the socket, and uv_listen(), so every client that connects inherits
// it and on_event() gets the sender's credentials with each client's first message. The bind
// is not the listen, and a connection uv_accept()ed is the server's, not the client handle's own.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uv.h>

static uv_pipe_t events;
static pid_t publisher;

// The pid the kernel attached to the next message on fd, -1 if none came with it.
static pid_t sender_of_next_message(int fd) {
  char data[256];
  char space[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof space};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred cred;
      memcpy(&cred, CMSG_DATA(c), sizeof cred);
      return cred.pid;
    }
  return -1;
}

static void on_event(uv_stream_t *server, int status) {
  if (status < 0)
    return;
  uv_pipe_t *client = malloc(sizeof *client);
  if (!client)
    return;
  uv_pipe_init(server->loop, client, 0);
  if (uv_accept(server, (uv_stream_t *)client) != 0)
    return;
  uv_os_fd_t fd;
  if (uv_fileno((const uv_handle_t *)client, &fd) == 0)
    publisher = sender_of_next_message(fd);
}

int main(void) {
  uv_loop_t *loop = uv_default_loop();
  int on = 1;
  uv_os_fd_t fd;
  uv_pipe_init(loop, &events, 0);
  if (uv_pipe_bind(&events, "/run/broker/events") != 0)
    return 1;
  if (uv_fileno((const uv_handle_t *)&events, &fd) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    return 1;
  if (uv_listen((uv_stream_t *)&events, 16, on_event) != 0)
    return 1;
  return uv_run(loop, UV_RUN_DEFAULT);
}
