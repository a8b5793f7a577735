// A master in C++ on libuv: a Worker object keeps the IPC pipe to one worker process, and Hand()
// sends it a client handle with uv_write2(). The master hands every client accepted since the last
// tick to the worker at once, without waiting for it to take any. The clients live in a vector of
// unique_ptrs, the callbacks are lambdas, and each finds its Master through the handle's `data`,
// set on the uv_pipe_t and read through the uv_stream_t the callback is handed.
#include <sys/socket.h>
#include <uv.h>

#include <memory>
#include <vector>

class Worker {
 public:
  Worker(uv_loop_t *loop, const char *path) {
    uv_pipe_init(loop, &channel_, 1);
    uv_pipe_connect(&connecting_, &channel_, path, nullptr);
  }
  void Hand(uv_pipe_t *client) {
    auto *req = new uv_write_t;
    uv_write2(req, reinterpret_cast<uv_stream_t *>(&channel_), &token_, 1, reinterpret_cast<uv_stream_t *>(client), // EXPECT-NOTE: sent here
              [](uv_write_t *done, int) { delete done; });
  }

 private:
  uv_pipe_t channel_;
  uv_connect_t connecting_;
  uv_buf_t token_ = uv_buf_init(const_cast<char *>("c"), 1);
};

class Master {
 public:
  explicit Master(uv_loop_t *loop) : loop_(loop), worker_(loop, "/run/master/worker") {
    uv_pipe_init(loop, &server_, 0);
    server_.data = this;
    uv_pipe_bind(&server_, "/run/master/clients");
    uv_listen(reinterpret_cast<uv_stream_t *>(&server_), 128, [](uv_stream_t *listener, int status) {
      if (status == 0)
        static_cast<Master *>(listener->data)->Accept();
    });
    uv_timer_init(loop, &tick_);
    tick_.data = this;
    uv_timer_start(&tick_, [](uv_timer_t *timer) { static_cast<Master *>(timer->data)->HandOver(); }, 100, 100);
  }

 private:
  void Accept() {
    auto client = std::make_unique<uv_pipe_t>();
    uv_pipe_init(loop_, client.get(), 0);
    if (uv_accept(reinterpret_cast<uv_stream_t *>(&server_), reinterpret_cast<uv_stream_t *>(client.get())) == 0) // EXPECT-NOTE: socket created here
      pending_.push_back(std::move(client));
  }
  void HandOver() {
    for (auto &client : pending_) // EXPECT-NOTE: loop here
      worker_.Hand(client.release()); // EXPECT: afunix-fd-flood
    pending_.clear();
  }

  uv_loop_t *loop_;
  Worker worker_;
  uv_pipe_t server_;
  uv_timer_t tick_;
  std::vector<std::unique_ptr<uv_pipe_t>> pending_;
};

int main() {
  uv_loop_t *loop = uv_default_loop();
  Master master(loop);
  return uv_run(loop, UV_RUN_DEFAULT);
}

