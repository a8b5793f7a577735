// A dispatcher with no loop of its own: sd-event calls on_connection() for every connection on
// the listener, and each call accepts one and hands it to the worker without waiting for it. The
// event loop is the repetition: one more AF_UNIX socket in flight per event.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct sd_event sd_event;
typedef struct sd_event_source sd_event_source;
typedef int (*sd_event_io_handler_t)(sd_event_source *s, int fd, unsigned revents, void *userdata);
int sd_event_add_io(sd_event *e, sd_event_source **s, int fd, unsigned events,
                    sd_event_io_handler_t callback, void *userdata);

static int worker_fd = -1;

static int send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0; // EXPECT-NOTE: sent here
}

static int on_connection(sd_event_source *s, int fd, unsigned revents, void *userdata) {
  int client = accept4(fd, 0, 0, SOCK_CLOEXEC); // EXPECT-NOTE: socket created here
  if (client < 0)
    return 0;
  send_fd(worker_fd, client); // EXPECT: afunix-fd-flood:3 EXPECT-MESSAGE: passing AF_UNIX socket 'client' (through 'send_fd') over 'worker_fd' once per event of the callback on_connection() registered at pos_event_callback_dispatch.c:46
  close(client);
  return 0;
}

int serve(sd_event *event, int worker) {
  worker_fd = worker;
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || listen(listener, 128) < 0)
    return -1;
  // EPOLLIN
  return sd_event_add_io(event, 0, listener, 1, on_connection, 0); // EXPECT-NOTE: on_connection() registered here: an event loop calls it once per event
}
