int usage(const char *program);
