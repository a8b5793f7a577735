// Not C: a missing ')' and a missing ';'. clang reports errors; the file is "not parsed".
int broken(int a { return a }
