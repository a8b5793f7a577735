// The units are the project here; the program only has to exist.
int main(void) { return 0; }
