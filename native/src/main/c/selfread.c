#define _GNU_SOURCE
#include "selfread.h"

#include <errno.h>

#include "rawcalls.h"

#define compiler_barrier() __asm__ __volatile__("" ::: "memory")

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t read_pmc(uint32_t counter) {
    uint32_t low, high;
    __asm__ __volatile__("rdpmc" : "=a"(low), "=d"(high) : "c"(counter));
    return ((uint64_t) high << 32) | low;
}

static inline uint64_t read_tsc(void) {
    uint32_t low, high;
    __asm__ __volatile__("rdtsc" : "=a"(low), "=d"(high));
    return ((uint64_t) high << 32) | low;
}
#define HAVE_RDPMC 1
#else
#define HAVE_RDPMC 0
#endif

static int read_syscall(int fd, uint64_t out[3]) {
    ssize_t n = perfpin_read(fd, out, 3 * sizeof(uint64_t));
    if (n < 0) {
        return -errno;
    }
    return n == 3 * sizeof(uint64_t) ? 0 : -EIO;
}

int perfpin_self_read(const struct perf_event_mmap_page *page, int fd, uint64_t out[3]) {
#if HAVE_RDPMC
    if (page == NULL) {
        return read_syscall(fd, out);
    }
    /* The protocol of perf_event_open(2), "The mmap layout": retry while the kernel updates the page. */
    uint32_t seq, index;
    uint64_t count, enabled, running, cycles, time_offset;
    uint32_t time_mult, time_shift;
    int user_time;
    do {
        seq = page->lock;
        compiler_barrier();
        index = page->index;
        if (!page->cap_user_rdpmc || index == 0) {
            return read_syscall(fd, out);
        }
        enabled = page->time_enabled;
        running = page->time_running;
        user_time = page->cap_user_time;
        cycles = 0;
        time_offset = 0;
        time_mult = 0;
        time_shift = 0;
        if (user_time) {
            cycles = read_tsc();
            time_offset = page->time_offset;
            time_mult = page->time_mult;
            time_shift = page->time_shift;
        }
        count = page->offset;
        uint16_t width = page->pmc_width;
        int64_t pmc = (int64_t) read_pmc(index - 1);
        pmc <<= 64 - width;
        pmc >>= 64 - width; /* sign-extend the counter's width */
        count += (uint64_t) pmc;
        compiler_barrier();
    } while (page->lock != seq);

    if (user_time) {
        uint64_t quot = cycles >> time_shift;
        uint64_t rem = cycles & (((uint64_t) 1 << time_shift) - 1);
        uint64_t delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
        enabled += delta;
        running += delta;
    }
    out[0] = count;
    out[1] = enabled;
    out[2] = running;
    return 1;
#else
    (void) page;
    return read_syscall(fd, out);
#endif
}
