// A third-party socket library the project links against (only its header is seen), shaped like
// Android's libcutils: lsock_server() makes a socket of `type`, binds it to the abstract name
// and, for SOCK_STREAM and SOCK_SEQPACKET, listens on it, all before it returns.
#pragma once

int lsock_server(const char *name, int type);
// Makes a socket of `type` and nothing more: the caller binds it.
int lsock_socket(int type);
