#include "LogListener.h"

#include <sys/socket.h>

#include "cutils_sockets.h"

LogListener::LogListener() : sock_(getLogSocket()) {}

int LogListener::getLogSocket() {
  static const char socketName[] = "mylogw";
  return android_get_control_socket(socketName);
}

bool LogListener::onDataAvailable() {
  char text[4096];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {text, sizeof text};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(sock_, &msg, 0) <= 0)
    return false;
  struct ucred *cred = nullptr;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
      cred = (struct ucred *)CMSG_DATA(c);
  if (!cred)
    return false;
  return log(cred->uid, text);
}

bool LogListener::log(uid_t, const char *) { return true; }
