// The JSON string escaper of the probe and its CLI, in one place. Header-only and allocation-free
// (the preloaded library uses it from inside other programs): `put` receives each output byte.
// Valid UTF-8 passes through unchanged; control characters and bytes that are not valid UTF-8
// become \u00XX, so the output is valid JSON whatever a path, argv or socket name contains.
#pragma once

#include <cstddef>

namespace afunix::probe {

template <typename Put> void escapeJson(const char *s, std::size_t n, Put put) {
  const char *hex = "0123456789abcdef";
  put('"');
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      put('\\');
      put(static_cast<char>(c));
      continue;
    }
    if (c == '\n') {
      put('\\');
      put('n');
      continue;
    }
    if (c >= 0x80) {
      std::size_t length = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
      bool valid = length && i + length <= n;
      for (std::size_t k = 1; valid && k < length; ++k)
        valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
      if (valid) {
        for (std::size_t k = 0; k < length; ++k)
          put(s[i + k]);
        i += length - 1;
        continue;
      }
    }
    if (c < 0x20 || c >= 0x7f) {
      put('\\');
      put('u');
      put('0');
      put('0');
      put(hex[c >> 4]);
      put(hex[c & 15]);
    } else {
      put(static_cast<char>(c));
    }
  }
  put('"');
}

} // namespace afunix::probe
