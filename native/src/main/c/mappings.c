/*
 * A file mapping let go of now. Java unmaps a MappedByteBuffer only when the GC collects it, which may be never in
 * a quiet application, and until then the mapping holds the file, removed or not, and its pages. munmap here would
 * leave the buffer's cleaner to unmap whatever is later mapped at that address; instead the same range gets fresh
 * anonymous memory (MAP_FIXED), which drops the file at once, costs no memory until written, and is what the
 * cleaner eventually unmaps. A write that still comes lands there, harmlessly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mappings.h"

jint JNICALL perfpin_release_mapping(JNIEnv *env, jclass cls, jobject buffer) {
    (void) cls;
    void *address = (*env)->GetDirectBufferAddress(env, buffer);
    jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
    long page = sysconf(_SC_PAGESIZE);
    if (address == NULL || capacity <= 0 || page <= 0 || (uintptr_t) address % (uintptr_t) page != 0) {
        return -EINVAL;
    }
    size_t length = ((size_t) capacity + (size_t) page - 1) / (size_t) page * (size_t) page;
    void *placed = mmap(address, length, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    return placed == MAP_FAILED ? -errno : 0;
}
