package io.perfpin.stats;

import java.nio.file.Path;

/**
 * Another process that writes a stats file, as a live JVM's agent does: it creates the file, says so on its output,
 * and keeps it open (and locked) until its input closes.
 */
public final class StatsHolder {
    private StatsHolder() {}

    public static void main(String[] args) throws Exception {
        try (StatsFile stats = StatsFile.create(Path.of(args[0]), 1, 0, 1_000_000L, 1, 1, 1)) {
            System.out.println("writing " + stats.path());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our input
            }
        }
    }
}
