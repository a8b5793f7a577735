// The master of pos_models_libuv_write2_class, done right: the worker gets the listening pipe
// once, when the Master is made, and accepts its clients itself; the Master keeps only the clients
// it serves on its own. The callbacks are lambdas that find their Master through the handle's
// `data`, as in the positive.
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
  void Hand(uv_pipe_t *listener) {
    auto *req = new uv_write_t;
    uv_write2(req, reinterpret_cast<uv_stream_t *>(&channel_), &token_, 1, reinterpret_cast<uv_stream_t *>(listener),
              [](uv_write_t *done, int) { delete done; });
  }

 private:
  uv_pipe_t channel_;
  uv_connect_t connecting_;
  uv_buf_t token_ = uv_buf_init(const_cast<char *>("l"), 1);
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
    worker_.Hand(&server_);
  }

 private:
  void Accept() {
    auto client = std::make_unique<uv_pipe_t>();
    uv_pipe_init(loop_, client.get(), 0);
    if (uv_accept(reinterpret_cast<uv_stream_t *>(&server_), reinterpret_cast<uv_stream_t *>(client.get())) == 0)
      served_.push_back(std::move(client));
  }

  uv_loop_t *loop_;
  Worker worker_;
  uv_pipe_t server_;
  std::vector<std::unique_ptr<uv_pipe_t>> served_;
};

int main() {
  uv_loop_t *loop = uv_default_loop();
  Master master(loop);
  return uv_run(loop, UV_RUN_DEFAULT);
}
