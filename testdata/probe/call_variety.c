// Every data call the probe intercepts, once each, on AF_UNIX sockets, plus fds duplicated with
// dup(), dup3() and fcntl(F_DUPFD_CLOEXEC) (the copies are sockets too): the probe must count
// send 5 (send, sendto, sendmsg, sendmmsg, send on the F_DUPFD copy), recv 4 (recv, recvfrom,
// recvmsg, recvmmsg), write 3 (write, writev, write on the dup), read 3 (read, readv, read on
// the dup3 copy), accept 1 (accept4), connect 1.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <fcntl.h>
#include <sys/uio.h>

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  int server = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
  CHECK(server >= 0);
  char buf[64];
  CHECK(send(client, "a", 1, 0) == 1);
  CHECK(recv(server, buf, 1, 0) == 1);
  CHECK(sendto(client, "b", 1, 0, NULL, 0) == 1);
  CHECK(recvfrom(server, buf, 1, 0, NULL, NULL) == 1);
  struct iovec iov = {"c", 1};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  CHECK(sendmsg(client, &msg, 0) == 1);
  struct iovec in = {buf, 1};
  struct msghdr rmsg = {0};
  rmsg.msg_iov = &in;
  rmsg.msg_iovlen = 1;
  CHECK(recvmsg(server, &rmsg, 0) == 1);
  struct mmsghdr mm[2];
  memset(mm, 0, sizeof mm);
  struct iovec two[2] = {{"d", 1}, {"e", 1}};
  mm[0].msg_hdr.msg_iov = &two[0];
  mm[0].msg_hdr.msg_iovlen = 1;
  mm[1].msg_hdr.msg_iov = &two[1];
  mm[1].msg_hdr.msg_iovlen = 1;
  CHECK(sendmmsg(client, mm, 2, 0) == 2);
  struct mmsghdr rm[1];
  memset(rm, 0, sizeof rm);
  struct iovec rin = {buf, 2};
  rm[0].msg_hdr.msg_iov = &rin;
  rm[0].msg_hdr.msg_iovlen = 1;
  CHECK(recvmmsg(server, rm, 1, 0, NULL) == 1);
  CHECK(write(client, "f", 1) == 1);
  CHECK(read(server, buf, 1) == 1);
  struct iovec v = {"g", 1};
  CHECK(writev(client, &v, 1) == 1);
  struct iovec rv = {buf, 1};
  CHECK(readv(server, &rv, 1) == 1);
  int copy = dup(client);
  CHECK(write(copy, "h", 1) == 1);
  int high = fcntl(client, F_DUPFD_CLOEXEC, 100);
  CHECK(high >= 100);
  CHECK(send(high, "i", 1, 0) == 1);
  int server_copy = dup3(server, 200, O_CLOEXEC);
  CHECK(server_copy == 200);
  CHECK(read(server_copy, buf, 2) == 2);
  printf("every call made once\n");
  int fds[] = {copy, high, server_copy, client, server, listener};
  for (unsigned i = 0; i < sizeof fds / sizeof *fds; ++i)
    close(fds[i]);
  return 0;
}
