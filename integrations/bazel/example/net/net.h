#pragma once

int net_open_unix(const char *path);
int net_open_tcp(unsigned short port);
