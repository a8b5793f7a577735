// A server that authenticates clients "if a credentials cmsg is present" but never enables
// SO_PASSCRED: the kernel never delivers SCM_CREDENTIALS, even though the client attaches them
// explicitly, so the check silently never runs. (With afunix-probe run --fix passcred the probe
// enables SO_PASSCRED before listen() and the credentials arrive.)
// PROBE-EXPECT: afunix-creds-without-passcred
#include "probe_util.h"

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  int server = accept(listener, NULL, NULL); // PROBE-SOCKET: afunix-creds-without-passcred stream accepted
  CHECK(server >= 0);

  struct ucred mine = {getpid(), getuid(), getgid()};
  char byte = 'a';
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof mine);
  memcpy(CMSG_DATA(c), &mine, sizeof mine);
  CHECK(sendmsg(client, &msg, 0) == 1);

  char data[16];
  struct ucred cred;
  if (recv_creds(server, data, sizeof data, &cred)) // PROBE-AT: afunix-creds-without-passcred
    printf("credentials: present, pid %s\n", cred.pid == getpid() ? "matches" : "differs");
  else
    printf("credentials: absent, the credential check was skipped\n");
  close(client);
  close(server);
  close(listener);
  return 0;
}
