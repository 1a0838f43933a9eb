package io.perfpin.registry;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A real file on a device that fills up at a write chosen by the test: the registry writes its recording through
 * this channel as through any other. Write {@code failing} (counted from 0) puts half its bytes in the file and fails
 * as a full disk does; from then on the file cannot grow beyond the size it reached, and a write that would is cut
 * there and fails too, while space freed by truncating it can be written again. Everything else is the file's own
 * channel: nothing here stands in for a system call, the bytes are in the file.
 */
final class FullDevice extends FileChannel {
    private final FileChannel file;
    private final int failing;
    private int writes;
    /** The most the file may hold once the device is full; -1 before. */
    private long capacity = -1;

    private FullDevice(FileChannel file, int failing) {
        this.file = file;
        this.failing = failing;
    }

    /** Creates {@code path}, new, on a device that fills at write {@code failing}. */
    static FullDevice create(Path path, int failing) throws IOException {
        return new FullDevice(
                FileChannel.open(
                        path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ),
                failing);
    }

    /** How many writes were asked of it, those that failed included. */
    synchronized int writes() {
        return writes;
    }

    /** Whether the device has filled. */
    synchronized boolean full() {
        return capacity >= 0;
    }

    @Override
    public synchronized int write(ByteBuffer src, long position) throws IOException {
        if (writes++ == failing) {
            ByteBuffer half = src.duplicate();
            half.limit(src.position() + src.remaining() / 2);
            int written = file.write(half, position);
            src.position(src.position() + written);
            capacity = position + written;
            throw new IOException("No space left on device");
        }
        if (capacity >= 0 && position + src.remaining() > capacity) {
            ByteBuffer fits = src.duplicate();
            fits.limit(src.position() + (int) Math.max(0, capacity - position));
            src.position(src.position() + file.write(fits, position));
            throw new IOException("No space left on device");
        }
        return file.write(src, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        throw new UnsupportedOperationException("the recording writes at a position");
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        throw new UnsupportedOperationException("the recording writes at a position");
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return file.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return file.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return file.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return file.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        file.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public synchronized FileChannel truncate(long size) throws IOException {
        file.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        file.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return file.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
        throw new UnsupportedOperationException("the recording writes at a position");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return file.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return file.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return file.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        file.close();
    }
}
