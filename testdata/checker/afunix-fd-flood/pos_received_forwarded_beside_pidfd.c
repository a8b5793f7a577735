// neg_pidfd_forwarded.c's supervisor and worker, but the worker forwards each client it receives
// with SCM_RIGHTS (the supervisor's accepted sockets) to the monitor in its loop without waiting,
// and only closes the pidfd it reads under `case SCM_PIDFD:`: a flood of the accepted sockets. The
// loop that repeats it is the receive loop, not the walk over one message's cmsgs.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

static int send_fd(int channel, int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(channel, &msg, 0) < 0 ? -1 : 0;
}

void supervise(const struct sockaddr_un *address, int worker_end) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener, (const struct sockaddr *)address, sizeof *address) < 0 || listen(listener, 64) < 0)
    return;
  for (;;) {
    int client = accept(listener, 0, 0); // EXPECT-NOTE: socket created here
    if (client < 0)
      continue;
    send_fd(worker_end, client);
    close(client);
    char ack;
    if (recv(worker_end, &ack, 1, 0) != 1)
      return;
  }
}

void work(int supervisor_end, int monitor) {
  int on = 1;
  setsockopt(supervisor_end, SOL_SOCKET, SO_PASSPIDFD, &on, sizeof on);
  for (;;) { // EXPECT-NOTE: loop here
    char byte;
    struct iovec iov = {&byte, 1};
    union {
      struct cmsghdr align;
      char buf[CMSG_SPACE(sizeof(int)) * 2];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    if (recvmsg(supervisor_end, &msg, 0) <= 0)
      return;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET)
        continue;
      switch (c->cmsg_type) {
      case SCM_PIDFD: {
        int pidfd;
        memcpy(&pidfd, CMSG_DATA(c), sizeof pidfd);
        close(pidfd);
        break;
      }
      case SCM_RIGHTS: {
        int client;
        memcpy(&client, CMSG_DATA(c), sizeof client);
        send_fd(monitor, client); // EXPECT: afunix-fd-flood
        close(client);
        break;
      }
      }
    }
    send(supervisor_end, "k", 1, 0);
  }
}

void start(const struct sockaddr_un *address, int monitor) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
    return;
  if (fork() == 0) {
    close(sv[0]);
    work(sv[1], monitor);
    _exit(0);
  }
  close(sv[1]);
  supervise(address, sv[0]);
}
