#include "LogListener.h"

int main() {
  LogListener listener;
  while (listener.onDataAvailable()) {
  }
}
