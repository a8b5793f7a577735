// Loops that pass fds known not to be sockets: pipe ends, memfds, files, eventfds and an ioctl
// result (dmabuf-style exporters). Only AF_UNIX socket fds make sendmsg() wait for the unix GC.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

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
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

void pass_pipes(int over, int n) {
  for (int i = 0; i < n; i++) {
    int p[2];
    if (pipe(p) < 0)
      return;
    send_fd(over, p[0]);
    close(p[0]);
    close(p[1]);
  }
}

void pass_memfds(int over) {
  while (1) {
    int fd = memfd_create("buf", MFD_CLOEXEC);
    send_fd(over, fd);
    close(fd);
  }
}

void pass_files(int over, const char *const *paths, int n) {
  int i = 0;
  do {
    int fd = open(paths[i], O_RDONLY);
    int dirfd = openat(AT_FDCWD, paths[i], O_RDONLY | O_DIRECTORY);
    send_fd(over, fd);
    send_fd(over, dirfd);
    close(fd);
    close(dirfd);
  } while (++i < n);
}

void pass_eventfds(int over) {
  for (;;) {
    int efd = eventfd(0, EFD_CLOEXEC);
    send_fd(over, efd);
    close(efd);
  }
}

void pass_exported_buffers(int over, int heap, unsigned long export_request) {
  for (;;) {
    int buffer = ioctl(heap, export_request, 0);
    send_fd(over, buffer);
    close(buffer);
  }
}
