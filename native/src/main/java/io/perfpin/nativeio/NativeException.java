package io.perfpin.nativeio;

/** A system call failed; {@link #errno()} says how. For callers that prefer exceptions to -errno. */
public final class NativeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public NativeException(String call, int errno) {
        super(call + " failed: " + Errno.name(errno));
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
