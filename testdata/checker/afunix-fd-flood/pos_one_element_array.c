// A dispatcher copies each accepted connection into a one-element array and that array into the
// SCM_RIGHTS payload (sizeof(int) bytes: one fd, read through the array, not its address), in a
// loop that never waits for the worker.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void dispatch(int worker, const struct sockaddr_un *address) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener, (const struct sockaddr *)address, sizeof *address) < 0 || listen(listener, 64) < 0)
    return;
  for (;;) { // EXPECT-NOTE: loop here
    int pass[1] = {accept(listener, 0, 0)}; // EXPECT-NOTE: socket created here
    if (pass[0] < 0)
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
    memcpy(CMSG_DATA(cmsg), pass, sizeof(int));
    sendmsg(worker, &msg, 0); // EXPECT: afunix-fd-flood
    close(pass[0]);
  }
}
