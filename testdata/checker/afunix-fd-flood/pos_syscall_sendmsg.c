// sendmsg() spelled as a raw system call, directly and inside a project's own sendmsg wrapper
// that takes the message: both are sends, judged like sendmsg() itself.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static long xsendmsg(int fd, const struct msghdr *m) {
  return syscall(__NR_sendmsg, fd, m, MSG_NOSIGNAL); // EXPECT-NOTE: sent here
}

void dispatch(int worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  for (;;) { // EXPECT-NOTE: loop here
    int client = accept4(listener, 0, 0, SOCK_CLOEXEC); // EXPECT-NOTE: socket created here
    if (client < 0)
      continue;
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
    syscall(SYS_sendmsg, worker, &msg, 0); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX socket 'client' over 'worker' in a loop
    close(client);
  }
}

void relay(int peer) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  while (1) { // EXPECT-NOTE: loop here
    int client = accept(listener, 0, 0); // EXPECT-NOTE: socket created here
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
    xsendmsg(peer, &msg); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: in a loop (through 'xsendmsg')
    close(client);
  }
}
