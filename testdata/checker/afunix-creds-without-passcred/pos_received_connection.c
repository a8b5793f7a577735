// A supervisor accepts connections and hands each to a worker process over a socketpair() with
// SCM_RIGHTS; the worker reads the client's credentials from the connection it received. Nothing
// enables SO_PASSCRED: not the listener before listen(), not the worker on the received socket.
// The fd the worker receives is what the supervisor sends over the other end of the socketpair().
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int send_fd(int channel, int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (sendmsg(channel, &msg, 0) < 0)
    return -1;
  return recv(channel, &byte, 1, 0); // the worker's acknowledgement
}

static int receive_fd(int channel) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(channel, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS)
    return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  send(channel, "", 1, 0);
  return fd;
}

static uid_t sender_uid(int conn) {
  char data[64];
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(conn, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return (uid_t)-1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return (uid_t)-1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid;
}

static void worker(int channel) {
  for (;;) {
    int conn = receive_fd(channel);
    if (conn < 0)
      return;
    if (sender_uid(conn) == 0) // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (accept() in main()) never has SO_PASSCRED
      write(conn, "welcome\n", 8);
    close(conn);
  }
}

int main(void) {
  int pair[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
  if (fork() == 0) {
    close(pair[0]);
    worker(pair[1]);
    _exit(0);
  }
  close(pair[1]);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/supervisor.sock"};
  bind(listener, (struct sockaddr *)&addr, sizeof addr);
  listen(listener, 16);
  for (;;) {
    int conn = accept(listener, NULL, NULL); // EXPECT-NOTE: accept() here
    if (conn < 0)
      continue;
    send_fd(pair[0], conn);
    close(conn);
  }
}

// The fix-it (on the listener before listen(): the connections inherit it, and the flag travels
// with the socket to the worker), as --fix applies it:
// EXPECT-FIXED: bind(listener, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(listener, 16);
