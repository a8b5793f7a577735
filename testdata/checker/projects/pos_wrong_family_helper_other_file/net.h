#pragma once
int open_tcp(unsigned short port);
int open_unix(const char *path);
int apply_pass_credentials(int fd);
