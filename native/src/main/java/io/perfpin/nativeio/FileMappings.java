package io.perfpin.nativeio;

import java.nio.MappedByteBuffer;

/**
 * Lets go of the file behind a {@link MappedByteBuffer} now rather than when the GC collects the buffer, which in
 * a quiet application may be never: until then the mapping keeps the file, even once removed, and its pages in the
 * process. Through perfpin's C library, the buffer's memory becomes empty anonymous memory; the buffer stays
 * valid (it reads zeros, and writes go nowhere) until the GC unmaps it. Only the JNI backend has it.
 */
public final class FileMappings {
    private FileMappings() {}

    /**
     * @param mapped a buffer that {@code FileChannel.map} returned, not a slice of one
     * @return 0, or -errno: -ENOSYS without the JNI backend, -EINVAL for a buffer that does not start a mapping
     */
    public static int release(Syscalls syscalls, MappedByteBuffer mapped) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.releaseMapping0(mapped) : -Errno.ENOSYS;
    }
}
