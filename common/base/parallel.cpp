#include "base/parallel.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace csg {

void parallel_for(std::size_t count, const std::function<void(std::size_t, std::size_t)>& body, std::size_t grain) {
  if (count == 0) return;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(cores, std::max<std::size_t>(1, count / std::max<std::size_t>(1, grain)));
  if (threads == 1) {
    body(0, count);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = count * t / threads;
    const std::size_t end = count * (t + 1) / threads;
    pool.emplace_back([&, t, begin, end] {
      try {
        body(begin, end);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& thread : pool) thread.join();
  for (auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace csg
