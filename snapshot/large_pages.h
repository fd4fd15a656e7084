// Memory for large arrays in 2 MB pages where the kernel gives them (transparent huge pages,
// asked for with madvise): one page fault per 2 MB instead of one per 4 KB. On the virtual
// machines candor runs on a fault costs ~15 µs, and the 16 MB a 100,000-entry index takes to load
// cost ~70 ms of faults in 4 KB pages, more than reading and parsing it.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace candor::snapshot {

inline constexpr std::size_t kLargePage = std::size_t{2} << 20;

// Like operator new, but a block of a large page or more is aligned to one and advised to be
// backed by large pages. Free with large_free(p, bytes).
inline void* large_alloc(std::size_t bytes) {
  if (bytes < kLargePage) return ::operator new(bytes);
  std::size_t rounded = (bytes + kLargePage - 1) / kLargePage * kLargePage;
  void* p = std::aligned_alloc(kLargePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  ::madvise(p, rounded, MADV_HUGEPAGE);  // only advice: without it, 4 KB pages
  return p;
}

inline void large_free(void* p, std::size_t bytes) noexcept {
  if (bytes < kLargePage) {
    ::operator delete(p);
  } else {
    std::free(p);
  }
}

// A buffer from large_alloc, freed with the size it was allocated with.
struct LargeFree {
  std::size_t bytes = 0;
  void operator()(char* p) const { large_free(p, bytes); }
};
using LargeBuffer = std::unique_ptr<char[], LargeFree>;

inline LargeBuffer large_buffer(std::size_t bytes) {
  return LargeBuffer(static_cast<char*>(large_alloc(bytes)), LargeFree{bytes});
}

template <typename T>
struct LargePageAllocator {
  using value_type = T;
  LargePageAllocator() = default;
  template <typename U>
  LargePageAllocator(const LargePageAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(large_alloc(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { large_free(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const LargePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace candor::snapshot
