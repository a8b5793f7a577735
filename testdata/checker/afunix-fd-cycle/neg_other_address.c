// A bound datagram socket sends itself to another socket's address: it is queued there, and that
// socket's close frees it (experiment fd_cycle_own_address: nothing left).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int hand_self_to_broker(void) {
  int s = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (s < 0)
    return -1;
  struct sockaddr_un self, broker;
  memset(&self, 0, sizeof self);
  memset(&broker, 0, sizeof broker);
  self.sun_family = broker.sun_family = AF_UNIX;
  strcpy(self.sun_path, "/run/afunix-testdata/worker.sock");
  strcpy(broker.sun_path, "/run/afunix-testdata/broker.sock");
  bind(s, (struct sockaddr *)&self, sizeof self);
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_name = &broker, .msg_namelen = sizeof broker, .msg_iov = &iov,
                       .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &s, sizeof s);
  ssize_t n = sendmsg(s, &msg, 0);
  close(s);
  return n < 0 ? -1 : 0;
}
