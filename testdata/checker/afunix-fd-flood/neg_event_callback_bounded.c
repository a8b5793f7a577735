// Callbacks that send AF_UNIX sockets once per event, each bounded by something the event loop
// does not undo: a request received on the channel before each answer, a channel made for the
// event, a datagram that stops at EAGAIN, sockets that outlive the events, and a thread start
// routine (once, not per event).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct sd_event sd_event;
typedef struct sd_event_source sd_event_source;
typedef int (*sd_event_io_handler_t)(sd_event_source *s, int fd, unsigned revents, void *userdata);
int sd_event_add_io(sd_event *e, sd_event_source **s, int fd, unsigned events,
                    sd_event_io_handler_t callback, void *userdata);

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
  return sendmsg(over, &msg, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

// A request on the connection, then one fresh socketpair() end back over it: one per request.
static int on_request(sd_event_source *s, int fd, unsigned revents, void *userdata) {
  char request[64];
  if (recv(fd, request, sizeof request, 0) <= 0)
    return 0;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0)
    return 0;
  send_fd(fd, pair[1]);
  close(pair[1]);
  return 0;
}

// Each connection gets one socket over itself: bounded by the connections.
static int on_client(sd_event_source *s, int fd, unsigned revents, void *userdata) {
  int client = accept4(fd, 0, 0, SOCK_CLOEXEC);
  if (client < 0)
    return 0;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) == 0) {
    send_fd(client, pair[0]);
    close(pair[0]);
  }
  return 0;
}

// Over a datagram socket with MSG_DONTWAIT, giving up at EAGAIN until the next event: the
// peer's receive queue bounds what is in flight.
static int notify_fd = -1;
static int on_handover(sd_event_source *s, int fd, unsigned revents, void *userdata) {
  int client = accept4(fd, 0, 0, SOCK_CLOEXEC);
  if (client < 0)
    return 0;
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &client, sizeof client);
  if (sendmsg(notify_fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
    if (errno == EAGAIN)
      return 0;
  }
  close(client);
  return 0;
}

// The listener itself, made once, sent to whoever connects to the control socket.
static int listener_fd = -1;
static int on_control(sd_event_source *s, int fd, unsigned revents, void *userdata) {
  send_fd(fd, listener_fd);
  return 0;
}

// A thread's start routine runs once.
static void *hand_over(void *arg) {
  int peer = (int)(long)arg;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0)
    send_fd(peer, pair[1]);
  return 0;
}

int serve(sd_event *event, int control, int peer) {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || listen(listener, 128) < 0)
    return -1;
  listener_fd = listener;
  notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sd_event_add_io(event, 0, control, 1, on_request, 0);
  sd_event_add_io(event, 0, listener, 1, on_client, 0);
  sd_event_add_io(event, 0, listener, 1, on_handover, 0);
  sd_event_add_io(event, 0, control, 1, on_control, 0);
  pthread_t thread;
  return pthread_create(&thread, 0, hand_over, (void *)(long)peer);
}
