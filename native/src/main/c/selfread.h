#ifndef PERFPIN_SELFREAD_H
#define PERFPIN_SELFREAD_H

#include <linux/perf_event.h>
#include <stdint.h>

/*
 * Reads the calling thread's own counter into out[0..2] = {value, time_enabled, time_running}.
 * Uses the event's mmap page and rdpmc under the page's seqlock when the kernel allows it
 * (cap_user_rdpmc and a non-zero index), otherwise read(2) on fd, which must then have been opened with
 * read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING and no group.
 * Returns 1 when rdpmc was used, 0 when read(2) was, or -errno.
 */
int perfpin_self_read(const struct perf_event_mmap_page *page, int fd, uint64_t out[3]);

#endif
