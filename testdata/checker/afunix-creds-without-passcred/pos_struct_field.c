// The socket lives in a struct field: created in one function, read in another through s->fd,
// with the credentials read as a struct ucred cast out of CMSG_DATA.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct server {
  int fd;
  int clients;
};

int server_open(struct server *s) {
  s->fd = socket(AF_LOCAL, SOCK_SEQPACKET, 0); // EXPECT-NOTE: socket created here
  return s->fd < 0 ? -1 : 0;
}

int server_next_uid(struct server *s) {
  char data[64];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(s->fd, &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c)
    return -1;
  struct ucred *uc = (struct ucred *)CMSG_DATA(c);
  return (int)uc->uid;
}
