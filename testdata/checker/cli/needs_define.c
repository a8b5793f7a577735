// Compiles only with -DAFUNIX_TEST_DEFINE: shows that arguments after `--` reach the parse.
#ifndef AFUNIX_TEST_DEFINE
#error "AFUNIX_TEST_DEFINE is not defined"
#endif
#include <sys/socket.h>
// Names a socket constant: a run over a database parses it (docs/prefilter.md).
int defined_ok = SOCK_STREAM;
