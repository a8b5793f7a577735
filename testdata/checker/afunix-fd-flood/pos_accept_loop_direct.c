// A dispatcher accepts connections on an AF_UNIX listener and hands each one to a worker with
// sendmsg(SCM_RIGHTS) in a while loop, never waiting for the worker: the accepted sockets pile up
// in flight.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void dispatch(int worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 128);
  while (1) { // EXPECT-NOTE: loop here
    int client = accept(listener, 0, 0); // EXPECT-NOTE: socket created here
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
    sendmsg(worker, &msg, 0); // EXPECT: afunix-fd-flood
    close(client);
  }
}
