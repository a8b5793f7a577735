// Compiles only with -DAFUNIX_TEST_DEFINE: shows that arguments after `--` reach the parse.
#ifndef AFUNIX_TEST_DEFINE
#error "AFUNIX_TEST_DEFINE is not defined"
#endif
int defined_ok;
