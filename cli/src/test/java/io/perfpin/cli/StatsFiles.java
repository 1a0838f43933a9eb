package io.perfpin.cli;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.stats.PublishedThread;
import io.perfpin.stats.StatsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Stats files for the commands to read: a valid one as an agent writes it, and damage to its bytes. */
final class StatsFiles {
    /** Event capacity 4, 3 live slots, 2 finished ones: the file's layout offsets follow from these. */
    static final int CAPACITY = 4;

    private StatsFiles() {}

    /** A closed file of {@code pid} with one thread, {@code worker}, that counts task-clock. */
    static void writeValid(Path file, long pid) throws IOException {
        try (StatsFile stats = StatsFile.create(file, pid, System.currentTimeMillis(), 50_000_000L, CAPACITY, 3, 2)) {
            stats.eventIndex("task-clock");
            stats.claimSlot(new Worker(new CounterSnapshot(0), new int[0]));
        }
    }

    /** A new thread, {@code worker} (tid 1), with no counts yet. */
    private record Worker(CounterSnapshot counts, int[] columns) implements PublishedThread {
        @Override
        public int tid() {
            return 1;
        }

        @Override
        public long javaId() {
            return 1;
        }

        @Override
        public String name() {
            return "worker";
        }

        @Override
        public String cpus() {
            return "0";
        }

        @Override
        public int pin() {
            return 0;
        }

        @Override
        public long enrolledNanos() {
            return 0;
        }

        @Override
        public long readFromNanos() {
            return 0;
        }

        @Override
        public long readToNanos() {
            return 0;
        }
    }

    static void putInt(Path file, long offset, int value) throws IOException {
        put(
                file,
                offset,
                ByteBuffer.allocate(Integer.BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(0, value));
    }

    static void putLong(Path file, long offset, long value) throws IOException {
        put(
                file,
                offset,
                ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value));
    }

    private static void put(Path file, long offset, ByteBuffer bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(bytes, offset);
        }
    }
}
