#pragma once
#define HELPER_SOCKET "/run/helper.sock"
int helper_connect(void);
int helper_send(int fd, const char *request);
int helper_says_root(const char *request);
int helper_serve(void);
