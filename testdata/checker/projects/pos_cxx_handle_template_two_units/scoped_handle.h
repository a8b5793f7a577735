// An RAII handle shaped like Chromium's base::ScopedGeneric (see client.cc).
#pragma once
#include <unistd.h>
#include <utility>

inline const int kInvalidFd = -1;

struct CloseTraits {
  static int InvalidValue() { return kInvalidFd; }
  static void Free(int fd) { close(fd); }
};

template <typename T, typename Traits> class ScopedHandle {
  struct Data : Traits {
    explicit Data(const T &in) : generic(in) {}
    Data(const T &in, const Traits &other) : Traits(other), generic(in) {}
    T generic;
  };

public:
  ScopedHandle() : data_(Traits::InvalidValue()) {}
  explicit ScopedHandle(const T &value) : data_(value) {}
  ScopedHandle(ScopedHandle &&rvalue) : data_(rvalue.release(), rvalue.get_traits()) {}
  ~ScopedHandle() { reset(); }
  ScopedHandle &operator=(ScopedHandle &&rvalue) {
    reset(rvalue.release());
    return *this;
  }
  void reset(const T &value = Traits::InvalidValue()) {
    if (data_.generic != Traits::InvalidValue())
      data_.Free(data_.generic);
    data_.generic = value;
  }
  void swap(ScopedHandle &other) {
    using std::swap;
    swap(data_.generic, other.data_.generic);
  }
  T release() {
    T old = data_.generic;
    data_.generic = Traits::InvalidValue();
    return old;
  }
  const T &get() const { return data_.generic; }
  Traits &get_traits() { return data_; }

private:
  Data data_;
};
using ScopedFd = ScopedHandle<int, CloseTraits>;
