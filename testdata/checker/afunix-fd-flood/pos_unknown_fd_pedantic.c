// OPTIONS: --pedantic
// With --pedantic, fds of unknown type sent in an unbounded loop get a note: nothing in the
// program says whether next_fd() returns AF_UNIX sockets.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int next_fd(void);

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

void forward(int peer) {
  for (;;) { // EXPECT-NOTE: loop here
    int fd = next_fd();
    send_fd(peer, fd); // EXPECT: afunix-fd-flood:5 EXPECT-SEVERITY: note EXPECT-MESSAGE: passing 'fd' over 'peer' in a loop (through 'send_fd'): nothing in the program says what kind of fd it is
    close(fd);
  }
}
