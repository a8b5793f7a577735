// libancillary as a project vendors it (only its header is seen here): ancil_send_fds(sock, fds,
// n_fds) sends the n_fds fds in one SCM_RIGHTS message, ancil_send_fd(sock, fd) one fd.
#pragma once

int ancil_send_fds(int sock, const int *fds, unsigned n_fds);
int ancil_send_fd(int sock, int fd);
