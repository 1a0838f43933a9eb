package io.perfpin.nativeio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Off-heap memory that the kernel writes into and Java reads from without copying: a direct buffer in
 * native byte order and its address, resolved once.
 */
public final class NativeBuffer {
    private final ByteBuffer buffer;
    private final long address;

    private NativeBuffer(ByteBuffer buffer, long address) {
        this.buffer = buffer;
        this.address = address;
    }

    public static NativeBuffer allocate(Syscalls syscalls, int size) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
        return new NativeBuffer(buffer, syscalls.addressOf(buffer));
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    public long address() {
        return address;
    }

    public int size() {
        return buffer.capacity();
    }

    public long getLong(int offset) {
        return buffer.getLong(offset);
    }

    public void clear() {
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put(i, (byte) 0);
        }
    }
}
